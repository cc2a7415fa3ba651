# expect: pass
# The blog's behaviour example (pytorch#143729, fixed by #143746): frexp's two outputs of
# different dtypes multiplied. Inductor's CPU codegen raised CppCompileError in PyTorch 2.6.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        x_frac, x_exp = torch.frexp(x)
        return x_frac * x_exp


def get_inputs():
    return [torch.randn(4, 1)]
