# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# A torch.compiler.nested_compile_region used as a torch.cond branch and then called again
# outside the cond: Dynamo reuses the region's subgraph from inside the branch's graph, and
# AOTAutograd cannot fetch it: "AttributeError: 'Module' object has no attribute
# 'false_graph_0.repeated_subgraph0'" (backend aot_eager and inductor; eager backend passes).
# torchsmith checks it as a program (`torchsmith check` this file: crash at aotautograd).
import torch


@torch.compiler.nested_compile_region
def block(a, b):
    return torch.cos(a)


def fn(x, y):
    u = torch.cond((x > 0).sum() > 4, lambda a, b: a.sin(), block, (x, y))
    return block(u, y) + u


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)]


if __name__ == "__main__":
    x, y = get_inputs()
    print("eager   ", fn(x, y).sum().item())
    print("compiled", torch.compile(fn, backend="aot_eager")(x, y).sum().item())
