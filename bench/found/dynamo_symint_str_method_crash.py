# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A size passed to a string method, `str(k).zfill(x.shape[0])`: on the second call with another
# size (automatic dynamic) the size is a SymInt and Dynamo's constant folding promotes the
# string itself to a symbolic node (torch/_dynamo/variables/constant.py): "'str' object has no
# attribute 'node'" (InternalTorchDynamoError, a crash, no graph break). `"ab".center(n)` and
# `s.split(".", n)` fail alike.
import torch


def fn(x):
    return x + 1, "7".zfill(x.shape[0])


def get_calls():
    return [[torch.ones(4)], [torch.ones(5)]]
