# ruff: noqa
import torch
import torch.nn as nn


class MyModel(nn.Module):
    def __init__(self):
        super(MyModel, self).__init__()
        self.conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


if __name__ == "__main__":
    torch.manual_seed(42)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = MyModel().to(device)
    model.eval()
    x = torch.randn(1, 3, 16, 16, device=device)
    with torch.no_grad():
        eager = model(x)
        compiled = torch.compile(model)(x)
    print((eager - compiled).abs().max())
    assert torch.allclose(eager, compiled, atol=1e-4)
