# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# The `__traceback__` Dynamo builds for an exception raised two calls deep and caught by the
# compiled function records the raising frame twice and misses the catching one:
# `traceback.extract_tb` gives [c2, c3, c3] where eager gives [fn, c2, c3], so
# `tb.tb_frame`-based logic (here the first frame's name) takes the other branch
# (symbolic_convert.py, exception_handler: an unhandled exception re-attaches the callee's own
# frame_summary() instead of the caller's), from `backend="eager"` on.
import traceback

import torch


def c3(x):
    raise KeyError("k")


def c2(x):
    return c3(x) + 1


def fn(x):
    try:
        c2(x)
    except KeyError as e:
        frames = traceback.extract_tb(e.__traceback__)
        return x + (1.0 if frames[0].name == "fn" else 5.0) + len({f.name for f in frames})
    return x


def get_inputs():
    return [torch.zeros(2)]
