"""Render a built graph as a canonical program (``Model``, ``get_inputs``, ``get_init_inputs``)."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchsmith.generate.graph.builder import Builder

#: Helper functions a program may need in ``get_inputs`` (only the used ones are written out).
HELPERS: dict[str, str] = {
    "distinct_values": '''\
def distinct_values(shape, lo, hi, g, dtype=torch.float32):
    """Values spread over [lo, hi], one per cell of a random permutation: no ties."""
    n = math.prod(shape)
    cells = torch.randperm(n, generator=g).to(torch.float64)
    jitter = torch.rand(n, generator=g, dtype=torch.float64) * 0.5 + 0.25
    return (lo + (hi - lo) * (cells + jitter) / max(n, 1)).reshape(shape).to(dtype)
''',
    "unique_indices": '''\
def unique_indices(shape, dim, high, g):
    """Indices in [0, high) that never repeat along `dim` (scatter targets stay unique)."""
    full = list(shape)
    full[dim] = high
    return torch.rand(full, generator=g).argsort(dim=dim).narrow(dim, 0, shape[dim])
''',
    "with_edge_values": '''\
def with_edge_values(t, g):
    """Overwrite about a tenth of the elements with zeros, infinities, NaN, denormals, extremes."""
    flat = t.reshape(-1).clone()
    if flat.numel() == 0:
        return t
    if flat.is_floating_point():
        special = torch.tensor(
            [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-40, -1e-40, 65504.0, 1e30]
        ).to(t.dtype)
    elif t.dtype == torch.bool:
        special = torch.tensor([True, False])
    else:
        info = torch.iinfo(t.dtype)
        special = torch.tensor([0, info.min, info.max, -1, 1]).clamp(info.min, info.max).to(t.dtype)
    k = max(1, flat.numel() // 10)
    where = torch.randperm(flat.numel(), generator=g)[:k]
    pick = torch.randint(0, special.numel(), (k,), generator=g)
    flat[where] = special[pick]
    return flat.reshape(t.shape)
''',
}

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


def render(b: Builder, header: list[str]) -> str:
    """The program text of a finished builder."""
    out: list[str] = [f"# {h}" if h else "#" for h in header]
    out += [
        "import math",
        "",
        "import torch",
        "import torch.nn as nn",
        "import torch.nn.functional as F",
    ]
    used = set()
    for inp in b.st.inputs:
        used |= set(_IDENT.findall(inp.src))
    for name, src in HELPERS.items():
        if name in used:
            out += ["", "", src.rstrip()]

    out += [
        "",
        "",
        "class Model(nn.Module):",
        "    def __init__(self):",
        "        super().__init__()",
    ]
    for attr, ctor in b.st.layers:
        out.append(f"        self.{attr} = {ctor}")
    args = ", ".join(["self"] + [i.val.name for i in b.st.inputs])
    out += ["", f"    def forward({args}):"]
    for line in b.st.lines:
        out.append(f"        {line}")
    outs = b.outputs()
    ret = ", ".join(v.name for v in outs)
    out.append(f"        return {ret}")

    out += ["", "", "def get_inputs():", "    g = torch.Generator()"]
    for inp in b.st.inputs:
        out.append(f"    {inp.val.name} = {inp.src}")
    for i, dim in b.dynamic:  # shapes=boundary: a dynamic dim (no error if specialized)
        out.append(f"    torch._dynamo.maybe_mark_dynamic({b.st.inputs[i].val.name}, {dim})")
    out.append(f"    return [{', '.join(i.val.name for i in b.st.inputs)}]")
    out += ["", "", "def get_init_inputs():", "    return []", ""]
    text = "\n".join(out)
    ast.parse(text)  # a rendering bug must never produce a file that does not parse
    return text


_OPS_LINE = re.compile(r"^# ops: (.*)$", re.MULTILINE)


def header_ops(source: str) -> set[str]:
    """The op spec names a generated program uses, read from its ``# ops:`` header line."""
    m = _OPS_LINE.search(source)
    if not m or not m.group(1).strip() or m.group(1).strip() == "-":
        return set()
    return {p.strip() for p in m.group(1).split(",") if p.strip()}
