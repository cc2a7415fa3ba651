# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A lazy submodule whose `initialize_parameters` uses the first input's values (an ActNorm-style
# init, `scale = 1 / x.std(0)`), inside a compiled model: Dynamo's `initialize_lazy_module`
# (torch/_dynamo/variables/nn_module.py) calls `_infer_parameters` on the real module with fake
# inputs: "Please convert all Tensors to FakeTensors first ... aten.copy_.default(Parameter,
# FakeTensor)" (a crash, no graph break, with any backend). Compiling the lazy module itself works
# (`OptimizedModule` initializes it with the real arguments first).
import torch
import torch.nn as nn
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.parameter import UninitializedParameter


class LazyActNorm(LazyModuleMixin, nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = UninitializedParameter()

    def initialize_parameters(self, x):
        with torch.no_grad():
            self.scale.materialize(x.shape[1:])
            self.scale.copy_(1.0 / x.std(0))

    def forward(self, x):
        return x * self.scale


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = LazyActNorm()

    def forward(self, x):
        return self.norm(x) + 1


def get_inputs():
    return [torch.randn(8, 3) * 5]
