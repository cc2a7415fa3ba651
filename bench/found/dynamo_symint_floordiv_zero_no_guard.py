# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x.shape[0] // (x.shape[0] - y.shape[0])` inside `try/except ZeroDivisionError`: once the sizes
# are dynamic (the second call, automatic dynamic), Dynamo traces the non-raising branch with no
# guard or runtime assert that the divisor is non-zero (sym_node.py builds FloorDiv / PythonMod /
# IntTrueDiv unchecked), so a third call whose sizes make it 0 reuses the graph: with
# `backend="eager"` ZeroDivisionError escapes the program's handler; under Inductor `//` gives 0
# silently (eager -6), `/` gives inf and `%` kills the process (SIGFPE).
import torch


def fn(x, y):
    try:
        r = x.shape[0] // (x.shape[0] - y.shape[0])
    except ZeroDivisionError:
        r = -1
    return x.sum() * r


def get_calls():
    return [[torch.ones(a), torch.ones(b)] for a, b in ((4, 2), (5, 3), (6, 6))]
