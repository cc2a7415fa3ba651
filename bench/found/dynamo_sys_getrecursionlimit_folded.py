# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Dynamo constant-folds `sys.getrecursionlimit()` (and `sys.get_int_max_str_digits()`) at trace
# time and installs no guard, so after `sys.setrecursionlimit` the compiled function keeps the
# old value; `sys.set_int_max_str_digits(n)` inside a compiled function runs only while tracing
# (polyfills/sys.py marks them `can_constant_fold_through=True`; they are not pure). Eager 2500,
# compiled 2000 on the second call, silently, from `backend="eager"` on.
import sys

import torch


def fn(x):
    return x + sys.getrecursionlimit()


def get_calls():
    x = torch.zeros(2)
    return [[x], [x]]


def before_call(i, target):
    sys.setrecursionlimit(2000 + 500 * i)
