# pytorch/pytorch#128711 (the issue Dynamo's own message points to): torch.func.vmap of a
# function that torch.compile traces (here torch.cond, which compiles its branches) called
# from outside a compiled region is not supported: torch.export (non-strict) of vmap over a
# torch.cond raises "Unsupported functorch tracing attempt". Eager runs it. Found by
# torchsmith's export family (hop base, vmap of cond).
import torch


def fn(x, y):
    def per_row(r, s):
        return torch.cond((r > 0).sum() > 1, lambda a, b: a.sin(), lambda a, b: a.cos(), (r, s))

    return torch.func.vmap(per_row)(x, y)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(6, 3, generator=g), torch.randn(6, 3, generator=g)]


compile_kwargs = {"backend": "aoti"}
