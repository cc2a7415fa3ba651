# Written from the facts of https://github.com/pytorch/pytorch/issues/143182 (not copied).
# ruff: noqa
# Same mechanism as the issue (LayerNorm over a large 2-D normalized shape, ~30 million
# elements in total), with 30 rows of 1000x1000 instead of 3 rows of 10000x1000: the
# compiled CPU Welford reduction is many times less accurate than eager against a
# float64 reference, yet stays within torch._dynamo.utils.same()'s fp64-based tolerance.
# Fixed by PR #145061 (Welford + cascade summation in Inductor's CPU backend).
import torch
import torch.nn as nn
from torch._dynamo.utils import same


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm([1000, 1000])

    def forward(self, x):
        return self.ln(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model().eval()
    x = torch.randn(30, 1000, 1000)
    with torch.no_grad():
        out = model(x)
        c_out = torch.compile(model)(x)
        ref = model.double()(x.double())
    e_err = (out.double() - ref).abs().max().item()
    c_err = (c_out.double() - ref).abs().max().item()
    print(f"eager err vs fp64    {e_err:.3e}")
    print(f"compiled err vs fp64 {c_err:.3e}  ({c_err / e_err:.1f}x eager)")
    print("same(fp64_ref):", same(out, c_out, fp64_ref=ref))
