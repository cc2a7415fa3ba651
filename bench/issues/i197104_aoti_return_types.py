# pytorch/pytorch#197104 (closed; PR #197128): aoti_compile_and_package fails for a model whose
# output is a torch.return_types named tuple ("No registered serialization name for ...").
# Rediscovered by the export surface (bench/surfaces.py) on torch 2.13.0 with linalg.solve_ex.
import torch


def fn(a, b):
    return torch.linalg.solve_ex(a, b)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(2, 4, 4, generator=g) + 4 * torch.eye(4), torch.randn(2, 4, 1, generator=g)]


compile_kwargs = {"backend": "aoti"}
