# Written from the facts of https://github.com/pytorch/pytorch/issues/143431 (not copied).
# ruff: noqa
# Two CPU torch.rand draws (one fed to argsort) used to gather from an input: with the
# same seed, backend="eager" reproduces eager, backend="aot_eager" gives a different
# (but self-consistent) result: AOTAutograd perturbed the CPU RNG order.
import torch


def f(image_latent):
    B = 2
    x = torch.rand(B, 12)
    order = torch.argsort(torch.rand(*x.shape), dim=-1)[:, :6]
    return image_latent[torch.arange(B).unsqueeze(-1), order][:, :3]


torch.manual_seed(0)
inp = torch.randn(2, 12, 4, 8, 8)

torch.manual_seed(54321)
ref = f(inp).sum()
results = {}
for backend in ("eager", "aot_eager"):
    torch._dynamo.reset()
    torch.manual_seed(54321)
    results[backend] = torch.compile(f, backend=backend, fullgraph=True)(inp).sum()
print("eager python:", ref)
print(results)
assert torch.allclose(results["aot_eager"], ref), "aot_eager changed the RNG stream"
