# A bug torchsmith found (see README.md here); torch 2.13.0 CPU, torch.export's API. A plain
# script (`python export_module_derived_dim_odd_size_accepted.py`).
# Exported with `dynamic_shapes={"y": {0: 2 * n}}` (y's size is even): `ep.module()`'s generated
# guards (torch/export/_unlift.py, `_get_input_guards_for_graph`) solve n = L / 2 but check only
# the range, not that L is even, so an odd size is accepted and the graph, which simplified
# `2 * (L // 2)` to L, silently sums all 9 elements: 36 where eager gives 28 (the old pre-hook,
# `check_guards=False`, and `unflatten` reject it: "Expected input ... to be of the form 2*s").
import torch
from torch.export import Dim, export


class Model(torch.nn.Module):
    def forward(self, y):
        h = y.shape[0] // 2
        return y[: 2 * h].sum()


if __name__ == "__main__":
    n = Dim("n", min=2, max=10)
    ep = export(Model(), (torch.arange(8.0),), dynamic_shapes={"y": {0: 2 * n}})
    y = torch.arange(9.0)
    want = Model()(y)
    try:
        got = ep.module()(y)
    except Exception as e:
        print("ok: rejected:", type(e).__name__)
    else:
        print("eager:", want, "ep.module():", got)
        print("BUG: an odd size is accepted and computed wrongly" if got != want else "ok")
