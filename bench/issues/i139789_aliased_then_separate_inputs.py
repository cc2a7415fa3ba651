# pytorch/pytorch#139789's mechanism in the other direction: the first call passes x and its
# view x[1:] (the view written in place: AOTAutograd compiles a synthetic-base graph), the
# second passes two separate tensors, and the first graph is reused without a recompile:
# inductor asserts "expected size 4==5" (aot_eager: setStorage out of bounds). PRs #184481
# (alias-layout guards) and #185891 (overlap-transition guards, open) are the nearest work.
# torchsmith's form from the steering bench (bench/steer.py), reduced by hand.
import torch


def fn(x, y):
    y.mul_(2.0)
    return x + 1


def get_calls():
    x = torch.zeros(5)
    return [[x, x[1:]], [torch.zeros(5), torch.ones(4)]]
