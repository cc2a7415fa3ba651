# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `vars(cfg).get("scale", 1.0)` (or `len(cfg.__dict__)`) on a config object that gains the
# attribute between two calls: Dynamo's `DunderDictVariable` makes its key-match and contains
# guards no-ops (torch/_dynamo/variables/dicts.py: "mutations to __dict__ are tracked through
# side effects", which covers mutations during tracing only), so the default read at the first
# call is baked in: 1 where eager gives 3, silently, with any backend.
import torch


class Cfg:
    def __init__(self):
        self.a = 1.0


CFG = Cfg()


def fn(x, cfg):
    return x * vars(cfg).get("scale", 1.0)


def get_calls():
    x = torch.ones(2)
    return [[x, CFG], [x, CFG]]


def before_call(i, target):
    if i == 0:
        CFG.__dict__.pop("scale", None)
    else:
        CFG.scale = 3.0
