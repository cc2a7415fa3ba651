# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Inside a `TorchFunctionMode` and `torch._C.DisableTorchFunctionSubclass()`, `torch.sin(x)` of a
# subclass input: eager collects no overloaded types (subclass dispatch is off), the mode sees
# `types == ()` and runs sin: [0, 0]; Dynamo's `dispatch_torch_function`
# (torch/_dynamo/variables/torch_function.py) collects them anyway: the mode sees `(Sub,)`,
# defers, and the disabled subclass handler runs (+100): [100, 100], silently, with any backend.
import torch
from torch.overrides import TorchFunctionMode


class DeferMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if types:
            return NotImplemented
        return func(*args, **(kwargs or {}))


class Sub(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunction():
            out = func(*args, **(kwargs or {}))
        return out + 100 if func is torch.sin else out


def fn(x):
    with DeferMode():
        with torch._C.DisableTorchFunctionSubclass():
            return torch.sin(x)


def get_inputs():
    return [torch.zeros(2).as_subclass(Sub)]


compile_config = {"functorch.check_custom_op_aliasing": False}
