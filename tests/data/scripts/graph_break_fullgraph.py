# ruff: noqa
# fullgraph=True and a graph break: the compile kwargs must reach torch.compile.
import torch


def f(x):
    y = x.sin()
    torch._dynamo.graph_break()
    return y.cos()


print(torch.compile(f, fullgraph=True)(torch.randn(5)))
