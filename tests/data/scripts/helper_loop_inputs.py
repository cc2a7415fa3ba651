# ruff: noqa
# Inputs built by a helper and a loop; a tuple and a list as arguments; no-argument call.
import torch


def make(n):
    return [torch.randn(3, 3) for _ in range(n)]


def f(pair, items, k=2):
    a, b = pair
    return torch.relu(a @ b) + sum(items) * k


def g():
    return torch.relu(torch.arange(6.0) - 2.5)


def main():
    xs = make(4)
    cf = torch.compile(f)
    print(cf((xs[0], xs[1]), xs[2:], k=3))
    print(torch.compile(g)())


if __name__ == "__main__":
    main()
