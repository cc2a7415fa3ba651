# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x.T` (also `x.mT`, `x.real`, `x.data`) of an input that is a plain `torch.Tensor` subclass
# (`t.as_subclass(Plain)`; a subclass buffer alike): Dynamo's `var_getattr` gives the computed
# attribute the source `x.T`, `TensorWithTFOverrideVariable.from_tensor_var` copies it and
# `as_subclass` tracks it as a new object: "AssertionError: source must be None for
# ValueMutationNew/AttributeMutationNew" (a crash, no graph break, with any backend). The same op
# on a subclass made inside the function works. (`check_custom_op_aliasing` off sidesteps
# #193932, a known crash of every bare subclass under AOTAutograd.)
import torch


class Plain(torch.Tensor):
    pass


def fn(x):
    return x.T + 1


def get_inputs():
    return [torch.ones(2, 3).as_subclass(Plain)]


compile_config = {"functorch.check_custom_op_aliasing": False}
