# Two planted faults of different kinds: a set literal (Dynamo's BUILD_SET fault, a crash at
# dynamo under fullgraph) and a relu (Inductor's relu accuracy fault). With the set literal the
# program crashes at dynamo; without it, the relu fault shows as a mismatch at inductor.
import torch


def fn(x, n):
    y = torch.relu(x) + 1.0
    s = {1, 2}
    z = y * n
    return z * len(s)


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(8, 4), 3]
