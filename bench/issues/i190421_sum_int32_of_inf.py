# Written from the facts of https://github.com/pytorch/pytorch/issues/190421 (not copied).
# ruff: noqa
# sum(..., dtype=torch.int32) over -inf values (log of zeros), with no inputs at all:
# compilation raised OverflowError("cannot convert float infinity to integer").
import torch


@torch.compile
def g():
    zeros = torch.zeros(2)
    logs = torch.log(zeros)
    return torch.sum(logs, dtype=torch.int32).float()


print(g())
