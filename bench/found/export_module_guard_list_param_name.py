# A bug torchsmith found (see README.md here); torch 2.13.0 CPU, torch.export's API. A plain
# script (`python export_module_guard_list_param_name.py`).
# `forward(self, xs, xs_0)` with a list input `xs` and a guard on `xs[0]` (a branch on its
# dynamic size): `ep.module()`'s generated guard function renames sources with a regex that
# takes any parameter named `<name>_<digits>` (torch/export/_unlift.py,
# `_force_gm_signature_match`), so the guard on `L['xs'][0]` checks `xs_0` instead and the
# export's own example inputs are rejected: "Guard failed: xs_0.size()[0] > 4". Eager runs.
import torch
from torch.export import Dim, export


class Model(torch.nn.Module):
    def forward(self, xs, xs_0):
        a = xs[0]
        if a.shape[0] > 4:
            return a.sum() + xs_0.sum()
        return a.sum() - xs_0.sum()


if __name__ == "__main__":
    args = ([torch.ones(6)], torch.ones(2))
    print("eager:", Model()(*args))
    ep = export(Model(), args, dynamic_shapes=([{0: Dim.DYNAMIC}], None))
    try:
        print("ep.module():", ep.module()(*args))
        print("ok")
    except Exception as e:
        print(f"BUG: ep.module() rejects the example inputs: {type(e).__name__}: {e}")
