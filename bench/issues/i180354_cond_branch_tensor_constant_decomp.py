# pytorch/pytorch#180354 (open): a tensor created inside a torch.cond branch (torch.tensor(...))
# exports, but ExportedProgram.run_decompositions() then raises "Attempting to use
# FunctionalTensor on its own": the branch's lifted constant is a FunctionalTensor attribute of
# the subgraph when the retrace reads it. Found by torchsmith's export family (hop base).
import torch


def fn(x, y):
    def true_fn(a, b):
        return a * torch.tensor(2.0) + b

    def false_fn(a, b):
        return a - b

    return torch.cond((x > 0).sum() > 4, true_fn, false_fn, (x, y))


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)]


compile_kwargs = {"backend": "aoti"}
