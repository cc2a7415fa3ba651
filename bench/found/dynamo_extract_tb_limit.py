# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Dynamo's `traceback.extract_tb` polyfill tests `if limit:`: `limit=0` keeps every frame where
# CPython keeps none, a negative limit keeps none where CPython keeps the last ones, and
# `sys.tracebacklimit` is ignored (polyfills/traceback.py): eager 1.0, compiled 10.0, from
# `backend="eager"` on.
import traceback

import torch


def fn(x):
    try:
        raise ValueError("bad")
    except ValueError as e:
        n0 = len(traceback.extract_tb(e.__traceback__, limit=0))
        nneg = len(traceback.extract_tb(e.__traceback__, limit=-1))
        return x + 10 * n0 + nneg


def get_inputs():
    return [torch.zeros(2)]
