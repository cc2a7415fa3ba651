# ruff: noqa
# A compiled module trained by the script: loss.backward() and SGD steps outside the compiled
# call, then the trained model evaluated.
import torch


class ClippedSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.relu(x)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return ClippedSquare.apply(self.fc(x))


torch.manual_seed(0)
net = Net()
model = torch.compile(net)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
x = torch.randn(16, 8)
for step in range(2):
    opt.zero_grad()
    loss = model(x).mean()
    loss.backward()
    opt.step()
print(loss.item())
