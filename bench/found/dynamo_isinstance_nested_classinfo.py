# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `isinstance(v, (float, (str, int)))` (a nested tuple of types, valid classinfo in Python) and
# `isinstance(v, (str, int | None))` (a union inside the tuple): Dynamo's isinstance handler
# accepts tuple members only if they are types or define `__instancecheck__`
# (torch/_dynamo/variables/builtin.py, the tuple branch of `call_isinstance`), and otherwise
# simulates a TypeError. Code that guards a conversion with `except TypeError` then takes the
# wrong branch, silently, with any backend (even "eager"); without the `try`, fullgraph=True
# fails with "Observed exception" and the default mode falls back to Python (right result).
import torch

SCALAR = (float, (int, bool))  # a nested classinfo tuple


def fn(x, scale):
    try:
        factor = float(scale) if isinstance(scale, SCALAR) else 1.0
    except TypeError:
        factor = 0.0
    return x * factor


def get_inputs():
    return [torch.ones(3), 3]


if __name__ == "__main__":
    x, s = get_inputs()
    print("eager:", fn(x, s), "compiled:", torch.compile(fn, backend="eager")(x, s))
