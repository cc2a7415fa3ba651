# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# The gradient form of region_as_cond_branch_reused.py: a torch.compiler.nested_compile_region
# used as a torch.cond branch and called again, on inputs that require grad. Inductor lowers
# the region's subgraph without its decompositions and then refuses the op it meets there:
# "LoweringException: AssertionError: both a fallback and a decomp for same op:
# aten.clamp.default" (target invoke_subgraph). Without gradients the same program fails in
# AOTAutograd (the AttributeError of region_as_cond_branch_reused.py); one cause, two messages.
# torchsmith checks it as a program (`torchsmith check` this file: crash at inductor).
import torch


@torch.compiler.nested_compile_region
def block(a, b):
    return (a * b).clamp(-3, 3)


def fn(x, y):
    u = torch.cond((x > 0).sum() > 4, lambda a, b: a + b, block, (x, y))
    return block(u, y) + u


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(6, 4, generator=g), torch.randn(6, 4, generator=g)]


check_options = {"grad": True}


if __name__ == "__main__":
    x, y = (t.requires_grad_() for t in get_inputs())
    print("eager   ", fn(x, y).sum().item())
    print("compiled", torch.compile(fn)(x, y).sum().item())  # raises
