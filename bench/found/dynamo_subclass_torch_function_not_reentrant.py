# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A subclass whose `__torch_function__` implements `torch.add` by calling `torch.mul` on its
# (subclass) arguments, and handles `torch.mul` itself: eager re-dispatches the inner call to the
# handler (only `Tensor.__torch_function__` disables it), S([102, 102]); Dynamo's
# `call_torch_function` (torch/_dynamo/variables/torch_function.py) disables subclass dispatch
# for the whole handler body (`is_subclass_dispatch`, PR #177088): a plain tensor([2, 2]), a
# wrong value and type, silently, with any backend.
import torch


class S(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.add:
            return torch.mul(args[0], args[1])
        if func is torch.mul:
            with torch._C.DisableTorchFunctionSubclass():
                out = torch.mul(args[0], args[1]) + 100
            return out.as_subclass(cls)
        return super().__torch_function__(func, types, args, kwargs)


def fn(x):
    return torch.add(x, 2)


def get_inputs():
    return [torch.ones(2).as_subclass(S)]


compile_config = {"functorch.check_custom_op_aliasing": False}
