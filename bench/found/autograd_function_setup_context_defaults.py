# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# An autograd.Function in the `setup_context` style whose `forward` has a default argument,
# called without it (`Scale.apply(x)`): eager binds the defaults, `setup_context` receives
# `inputs == (x, 3.0)` (torch/autograd/function.py); Dynamo passes only `(x,)`
# (torch/_functorch/autograd_function.py), so `ctx.scale` takes its fallback 1.0: x.grad = 1 for
# 3, a silent wrong gradient with any backend (even "eager"). Skipping a default by keyword,
# `Affine.apply(x, scale=3.0)`, crashes: "forward() missing required argument: 'bias'"; on an
# input that does not require grad the same call crashes too ("'AutogradFunctionContextVariable'
# object has no attribute 'proxy'": the context lands in `x`).
# Its input requires grad, so `torchsmith check` judges gradients too.
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(x, scale=3.0):
        return x * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.scale = inputs[1] if len(inputs) > 1 else 1.0

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None


def fn(x):
    return Scale.apply(x)


def get_inputs():
    return [torch.ones(3, requires_grad=True)]
