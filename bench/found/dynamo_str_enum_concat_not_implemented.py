# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `Mode.TRAIN + "_loss"` with `class Mode(str, Enum)` (the usual string enum): eager runs
# `str.__add__` through the mixin, "train_loss"; Dynamo's `sq_concat_impl`
# (torch/_dynamo/variables/user_defined.py) has no base value for the enum member, falls back to
# `nb_add_impl`, gets NotImplemented and returns it as the result (`vt_add`): the key is
# NotImplemented, silently, with any backend (even "eager").
import enum

import torch


class Mode(str, enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


def fn(x):
    return x + 1, Mode.TRAIN + "_loss"


def get_inputs():
    return [torch.zeros(1)]
