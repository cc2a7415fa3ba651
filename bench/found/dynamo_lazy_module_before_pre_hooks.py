# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A lazy submodule (`nn.LazyLinear(2)`) with a forward pre-hook that changes its input
# (registered with `prepend=True`, so it runs before the lazy-init hook; a global
# `register_module_forward_pre_hook` alike): eager infers in_features=6 from the hooked input;
# Dynamo initializes the module from the raw call arguments before tracing its pre-hooks
# (torch/_dynamo/variables/nn_module.py, `initialize_lazy_module` before `__call__`):
# in_features=3, then "mat1 and mat2 shapes cannot be multiplied" (a crash, with any backend),
# and the module stays wrongly initialized for later eager calls too.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.LazyLinear(2)
        self.lin.register_forward_pre_hook(
            lambda mod, args: (torch.cat([args[0], args[0]], -1),), prepend=True
        )

    def forward(self, x):
        return self.lin(x)


def get_inputs():
    return [torch.randn(4, 3)]
