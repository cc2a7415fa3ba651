# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Breaking out of `for v in gen(x)` while the generator is suspended inside
# `with torch.no_grad()`: CPython finalizes the dropped generator (its `with` exits, grad mode
# is restored at once); Dynamo's `LocalGeneratorObjectVariable`
# (torch/_dynamo/variables/functions.py) never closes it, so grad mode stays off for the rest of
# the function, `y = x * 2` does not require grad (False for True), and stays off after the
# compiled call returns (`torch.is_grad_enabled()` is False in the caller); a generator's
# `finally` never runs. With any backend (even "eager"), fullgraph too.
import torch


def gen(x):
    with torch.no_grad():
        for i in range(3):
            yield x * i


def fn(x):
    for _v in gen(x):
        break
    y = x * 2
    return y.detach(), y.requires_grad


def get_inputs():
    return [torch.ones(2, requires_grad=True)]
