# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# An autograd.Function with `boxed_grads_call = True`: eager calls `backward(ctx, [g])` (the
# grads boxed in a list, torch/autograd/function.py); Dynamo's traced backward
# (torch/_dynamo/variables/higher_order_ops.py, `prepare_fn_vt`) passes `g` itself, so
# `grads[0]` is row 0 of the gradient: "returned an invalid gradient at index 0 - got [4] but
# expected shape compatible with [3, 4]" (a crash at backward with "eager", at compile with
# aot_eager and inductor) where eager gives 2.0 everywhere. Its input requires grad: gradients judged.
import torch


class Scale(torch.autograd.Function):
    boxed_grads_call = True

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grads):
        return grads[0] * 2


def fn(x):
    return Scale.apply(x)


def get_inputs():
    return [torch.arange(12.0).reshape(3, 4).requires_grad_()]
