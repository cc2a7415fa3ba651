# A bug torchsmith found (see README.md here); torch 2.13.0 CPU, torch.export's unlifted module.
# A plain script (`python export_module_string_input_guard.py`): a `str` input is specialized,
# and `ExportedProgram.module()` checks it with a guard built as source text,
# `f"{src} == '{meta}'"` (torch/export/_unlift.py), with no escaping: the module refuses the
# very inputs it was exported with when the string holds a backslash sequence ("a\\nb": the
# guard compares against a newline, "Guard failed") or a quote ("it's": SyntaxError). Eager
# runs; "abc" works.
import torch
from torch.export import export


class Tag(torch.nn.Module):
    def forward(self, x, mode: str):
        return x + len(mode)


if __name__ == "__main__":
    x, bad = torch.zeros(2), []
    for s in ("abc", "a\\nb", "it's"):
        try:
            out = export(Tag(), (x, s)).module()(x, s)
            print(f"{s!r}: {out.tolist()} (eager {Tag()(x, s).tolist()})")
        except Exception as e:
            bad.append(s)
            print(f"{s!r}: {type(e).__name__}: {str(e).splitlines()[0][:100]}")
    print(f"BUG: module() rejects its own example inputs {bad}" if bad else "ok")
