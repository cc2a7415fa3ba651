# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `seq.index(v, start)` with a negative `start` (or `end`), when the list (tuple, deque) holds a
# tensor: Dynamo's `polyfills.index` passes start/end straight to `itertools.islice`
# (torch/_dynamo/polyfills/__init__.py), whose polyfill rejects negative indices, so Dynamo
# simulates a ValueError where Python finds the item. Code that handles "not found" with
# `except ValueError` takes that branch, silently, with any backend (even "eager"): here
# `[x, 1, 2].index(2, -1)` is 2 in Python and "not found" (-1) compiled.
import torch


def fn(x):
    items = [x, 1, 2]
    try:
        i = items.index(2, -1)  # search the last element only
    except ValueError:
        i = -1
    return x * i


def get_inputs():
    return [torch.ones(3)]


if __name__ == "__main__":
    (x,) = get_inputs()
    print("eager:", fn(x), "compiled:", torch.compile(fn, backend="eager")(x))
