# A bug torchsmith found (see README.md here); torch 2.13.0 CPU, torch.export's API. A plain
# script (`python export_derived_dim_named_n.py`): the failure is in building the dynamic-shape
# spec, before any program runs.
# A derived dimension from a `Dim` named "N" (also "S", "Q", "O", "beta": sympy's global names),
# `Dim("N", min=2, max=32) * 2`: `_derived_name` (torch/export/dynamic_shapes.py) calls
# `sympify(self.__name__)`, which turns "N" into sympy's `N` function, and the arithmetic fails:
# "TypeError: unsupported operand type(s) for *: 'function' and 'int'". "N" is the usual name
# for a batch size; `Dim("B") * 2` and a plain `Dim("N")` work.
import torch
from torch.export import Dim, export


class Pair(torch.nn.Module):
    def forward(self, x, y):
        return x.sum() + y.sum()


if __name__ == "__main__":
    bad = []
    for name in ("B", "N", "S", "Q"):
        d = Dim(name, min=2, max=32)
        try:
            ep = export(
                Pair(), (torch.randn(4), torch.randn(8)), dynamic_shapes=({0: d}, {0: d * 2})
            )
            ep.module()(torch.randn(5), torch.randn(10))
            print(f"Dim({name!r}) * 2: exported")
        except Exception as e:
            bad.append(name)
            print(f"Dim({name!r}) * 2: {type(e).__name__}: {e}")
    print("BUG: a derived Dim fails for these names: " + ", ".join(bad) if bad else "ok")
