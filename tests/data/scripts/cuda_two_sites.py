# ruff: noqa
# Written for a GPU: .cuda() and device="cuda" are mapped to the CPU. Two compile sites.
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


def post(y):
    return y.softmax(-1)


model = Net().cuda().eval()
x = torch.randn(2, 8, device="cuda")
with torch.no_grad():
    y = torch.compile(model)(x)
    z = torch.compile(post, backend="aot_eager")(y)
torch.cuda.synchronize()
print(z)
