"""Programs whose sizes come from data: ``.item()``, ``nonzero``, ``masked_select``, boolean
masks, ``repeat_interleave`` with a tensor of repeats, ``unique``, and views sized by a value.

Under ``torch.compile`` such sizes are *unbacked* symbols only with
``dynamo.capture_scalar_outputs`` and ``dynamo.capture_dynamic_output_shape_ops`` (otherwise
Dynamo graph-breaks), so every program declares both in ``compile_config``; ``torch.export``
always traces them as unbacked symbols. Bounds a user would state are stated with
``torch._check`` (what export asks for).

Pure: :func:`render` draws every choice from the ``random.Random`` it is given and returns the
source; the program's values are seeded by a ``torch.Generator``. False-alarm rules: no float is
cast to an int or compared at a threshold it can be near (thresholds are compared against
values drawn on a 1/8 grid shifted by 1/16), counts come from int64 tensors, the result of a
selection is never empty (a value above the threshold is planted), outputs keep moderate values.
"""

from __future__ import annotations

import random
from collections.abc import Callable

#: ``dynamo`` settings every unbacked program declares (the compile path's capture flags).
CAPTURE_CONFIG = {
    "dynamo.capture_dynamic_output_shape_ops": True,
    "dynamo.capture_scalar_outputs": True,
}

#: The float input: values on a 1/8 grid shifted by 1/16, so a threshold on the grid (k/8)
#: is never within rounding of a value. The first element is planted above any threshold.
GRID_INPUT = (
    "def _grid(shape, seed):\n"
    "    g = torch.Generator().manual_seed(seed)\n"
    "    x = torch.randint(-16, 16, shape, generator=g).float() / 8 + 1 / 16\n"
    "    x.view(-1)[0] = 3.0625\n"
    "    return x\n"
)

FOLLOW = (
    "{v} * 2 + 1",
    "torch.tanh({v})",
    "{v}.sum(0, keepdim=True) + {v}",
    "torch.relu({v}) - 0.5",
    "{v}.exp().clamp(max=20)",
)


def _follow(rng: random.Random, var: str) -> str:
    return rng.choice(FOLLOW).format(v=var)


#: Template name -> (the variable the program's output follows, or None; the body of ``fn``,
#: with ``{thr}`` a threshold and ``{out}`` the follow-up expression).
TEMPLATES: dict[str, tuple[str | None, str]] = {
    "nonzero": (
        "vals",
        "    idx = torch.nonzero(x > {thr})\n"
        "    vals = x[idx[:, 0], idx[:, 1]]\n"
        "    out = {out}\n"
        "    return out, idx\n",
    ),
    "masked_select": (
        "sel",
        "    sel = torch.masked_select(x, x > {thr})\n    out = {out}\n    return out, sel.sum()\n",
    ),
    "bool_mask": (
        "rows",
        "    rows = x[x[:, 0] > {thr}]\n    out = {out}\n    return out, rows.mean(0)\n",
    ),
    "item_slice": (
        "head",
        "    n = k.sum().item()\n"
        "    torch._check(n >= 1)\n"
        "    torch._check(n <= x.shape[0])\n"
        "    head = x[:n]\n"
        "    out = {out}\n"
        "    return out, head.reshape(-1).cumsum(0)\n",
    ),
    "item_size": (
        "z",
        "    n = k.sum().item()\n"
        "    torch._check(n >= 1)\n"
        "    ramp = torch.arange(n, dtype=x.dtype) / 8\n"
        "    z = x.new_zeros(n, x.shape[1]) + ramp[:, None]\n"
        "    out = {out}\n"
        "    return out, x + z.sum()\n",
    ),
    "item_scalar": (
        "x",
        "    m = x.abs().max().item()\n"
        "    c = k.max().item()\n"
        "    out = {out} / (1 + m) + c\n"
        "    return out, x.abs().amax(1)\n",
    ),
    "repeat_interleave": (
        "rep",
        "    rep = torch.repeat_interleave(x, k.clamp(min=1), dim=0)\n"
        "    out = {out}\n"
        "    return out, rep.sum(1)\n",
    ),
    "unique": (
        None,
        "    u, counts = torch.unique(k, sorted=True, return_counts=True)\n"
        "    w = u.float() / 4 + counts.float()\n"
        "    out = (x * w.sum()).tanh()\n"
        "    return out, w\n",
    ),
    "nonzero_view": (
        "pairs",
        "    flat = x.reshape(-1)[torch.nonzero(x.reshape(-1) > {thr}).squeeze(1)]\n"
        "    n = flat.shape[0]\n"
        "    pairs = flat[: n - n % 2].view(-1, 2)\n"
        "    out = {out}\n"
        "    return out, flat.max()\n",
    ),
}


def _body(rng: random.Random, name: str, thr: str) -> str:
    var, text = TEMPLATES[name]
    return text.format(thr=thr, out=_follow(rng, var) if var else "")


def render(
    rng: random.Random, header: list[str], compile_kwargs: dict[str, object]
) -> tuple[str, list[str]]:
    """A function program ``fn(x, k)`` (``x`` float, ``k`` a small int64 count tensor) from one
    template, with one or two calls (the second with another leading size); returns the
    source and its notes (``unbacked:<template>``, ``calls=N``)."""
    name = rng.choice(sorted(TEMPLATES))
    thr = f"{rng.choice((-2, -1, 0, 1, 2)) / 8!r}"
    body, tag = _body(rng, name, thr), name
    rows = rng.randint(3, 6)
    cols = rng.choice((2, 4, 5, 8))
    seed = rng.randrange(10_000)
    ncalls = rng.choice((1, 1, 2))
    sizes = [rows] + [rng.choice([r for r in range(3, 9) if r != rows]) for _ in range(ncalls - 1)]

    def args(r: int, s: int) -> str:
        return f"[_grid(({r}, {cols}), {s}), torch.randint(0, 3, ({r},), generator=_gen({s}))]"

    lines = [f"# {h}" for h in header]
    lines += ["import torch", "", "", GRID_INPUT, ""]
    lines += ["def _gen(seed):", "    return torch.Generator().manual_seed(seed + 1)", "", ""]
    lines += ["def fn(x, k):", body, ""]
    lines += calls_and_settings(args, sizes, seed, compile_kwargs, CAPTURE_CONFIG)
    return "\n".join(lines) + "\n", [f"unbacked:{tag}", f"calls={ncalls}"]


def calls_and_settings(
    args: Callable[[int, int], str],
    sizes: list[int],
    seed: int,
    compile_kwargs: dict[str, object],
    config: dict[str, object],
) -> list[str]:
    """The tail every data-dependent program shares: ``get_inputs`` (the first leading size),
    ``get_calls`` when there are more sizes (seeds ``seed + i``), ``compile_kwargs`` and the
    ``compile_config`` (sorted)."""
    lines = ["def get_inputs():", f"    return {args(sizes[0], seed)}", ""]
    if len(sizes) > 1:
        calls = ", ".join(args(r, seed + i) for i, r in enumerate(sizes))
        lines += ["", "def get_calls():", f"    return [{calls}]", ""]
    return [
        *lines,
        "",
        f"compile_kwargs = {compile_kwargs!r}",
        f"compile_config = {dict(sorted(config.items()))!r}",
    ]
