# ruff: noqa
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x).mean()


net = Net()
net.compile()
print(net(torch.randn(3, 3)))
