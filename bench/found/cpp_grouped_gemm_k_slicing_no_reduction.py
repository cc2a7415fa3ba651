# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (2 threads).
# Config space: max_autotune with the C++ GEMM templates, freezing, the grouped GEMM template
# (cpp.enable_grouped_gemm_template) and K-slicing allowed (cpp.gemm_max_k_slices 0 or 2; its
# default 1 forbids it), dynamic shapes: two linears sharing one input become one grouped GEMM
# whose template (codegen/cpp_grouped_gemm_template.py) splits K across threads but has no
# cross-slice reduction (the single GEMM template's `maybe_k_slicing` branch): each thread stores
# its partial sum, the slices overwrite each other: outputs off fp64 by 0.94 (eager 2e-7).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = nn.Linear(512, 8)
        self.b = nn.Linear(512, 8)

    def forward(self, x):
        return self.a(x), self.b(x)


def get_inputs():
    return [torch.randn(3, 512, generator=torch.Generator().manual_seed(1))]


compile_kwargs = {"dynamic": True}
compile_config = {
    "inductor.max_autotune": True,
    "inductor.max_autotune_gemm_backends": "CPP,ATEN",
    "inductor.freezing": True,
    "inductor.cpp.enable_grouped_gemm_template": True,
    "inductor.cpp.gemm_max_k_slices": 0,
}
