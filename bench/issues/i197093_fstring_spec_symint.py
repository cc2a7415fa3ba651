# pytorch/pytorch#197093 (open): under dynamic shapes an f-string with a format spec on a
# shape-derived value (`f"{x.shape[0]:03d}"`, `:.3f` on a derived float) raises
# InternalTorchDynamoError "ValueError: Unknown format code 'd' for object of type 'str'": the
# symbolic value reaches the spec as its string form. Without a spec, or with static shapes, it
# works. Met by torchsmith's python-family campaigns (eleventh and twelfth passes), default
# settings on the second call with another size.
import torch


def fn(x):
    return x + 1, f"{x.shape[0]:03d}"


def get_calls():
    return [[torch.ones(3)], [torch.ones(5)]]
