"""Programs that compose data-dependent sizes: one *producer* gives a tensor whose leading size
comes from data (an unbacked symbol ``u0`` under ``torch.export`` and under ``torch.compile``
with the capture flags), then a chain of 2 to 4 *steps* that slice, pad, concatenate, pool,
convolve, attend over, reduce or re-select it.

Why a chain and not a template (``unbacked.py``): the bugs of unbacked sizes are in how each
lowering and each wrapper writes the size expressions it is handed (``u0 - 1``, a slice start
of ``None``, ``(u0 + 1) // 2``, ``2 * u0 + 3``, a size one step derived from another
unbacked size); a template gives one expression per program, a chain gives their compositions.
AOTInductor's C++ wrapper and ``cpp_wrapper`` print those expressions as C++, a second place
each can go wrong.

State while drawing: ``kind`` (``1d``: ``(u,)``; ``2d``: ``(u, cols)``), ``lo`` (a proven lower
bound on the leading size, so ops that need a non-empty or long enough input are drawn only
when ``lo`` allows) and ``exact`` (the values are still grid values of the input, so a new
mask on them cannot flip by rounding: the only place a second data-dependent size is drawn).

False-alarm rules (those of ``unbacked.py``, plus): thresholds only ever compare exact grid
values; float ``.item()`` values only scale; every reduction that fails on an empty tensor needs
``lo >= 1``; no float is turned into an index or a size. The eager check of the family
(:class:`~torchsmith.generate.family.ValidatedFamily`) still rejects anything invalid.

Pure: :func:`render` draws every choice from the ``random.Random`` it is given.
"""

from __future__ import annotations

import dataclasses
import random

from torchsmith.generate.export.unbacked import CAPTURE_CONFIG, FOLLOW, calls_and_settings

#: The float input: 1/8 grid shifted by 1/16 (no value is ever at a threshold ``k/8``); the
#: first column of the first two rows is planted above any threshold, so a row mask keeps >= 2.
GRID_INPUT = (
    "def _grid(shape, seed):\n"
    "    g = torch.Generator().manual_seed(seed)\n"
    "    x = torch.randint(-16, 16, shape, generator=g).float() / 8 + 1 / 16\n"
    "    x[:2, 0] = 3.0625\n"
    "    return x\n"
)
#: The count input: 0..2, with ``k[0] = 1`` and ``k[1] = 2`` (so ``(k > 0).sum() >= 2`` and
#: ``unique(k)`` has >= 2 values).
COUNT_INPUT = (
    "def _counts(n, seed):\n"
    "    g = torch.Generator().manual_seed(seed + 1)\n"
    "    k = torch.randint(0, 3, (n,), generator=g)\n"
    "    k[0], k[1] = 1, 2\n"
    "    return k\n"
)


@dataclasses.dataclass
class State:
    kind: str  # "1d" or "2d"
    lo: int  # proven lower bound on the leading (data-dependent) size
    cols: int  # trailing size of a 2d tensor
    exact: bool  # values are still grid values of x (safe to threshold)


@dataclasses.dataclass(frozen=True)
class Step:
    """One statement on ``t``: ``code`` (may use ``{thr}``, ``{c}``), the kinds it takes, the
    ``lo`` it needs, and how it changes the state."""

    code: str
    kinds: tuple[str, ...]
    need: int = 0  # lo >= need
    lo: str = "lo"  # new lo, an expression of lo and cols
    kind: str | None = None  # new kind (None: unchanged)
    cols: str = "cols"
    exact: bool = False  # keeps exactness (pure data movement)
    needs_exact: bool = False


PRODUCERS: dict[str, tuple[str, State]] = {
    "mask_rows": ("t = x[x[:, 0] > {thr}]", State("2d", 2, 0, True)),
    "nonzero_rows": ("t = x[torch.nonzero(x[:, 0] > {thr}).squeeze(1)]", State("2d", 2, 0, True)),
    "index_select": (
        "t = x.index_select(0, torch.nonzero(x[:, 0] > {thr}).reshape(-1))",
        State("2d", 2, 0, True),
    ),
    "masked_select": ("t = torch.masked_select(x, x > {thr})", State("1d", 2, 0, True)),
    "nonzero_flat": (
        "t = x.reshape(-1)[torch.nonzero(x.reshape(-1) > {thr}).squeeze(1)]",
        State("1d", 2, 0, True),
    ),
    "repeat_interleave": ("t = torch.repeat_interleave(x, k + 1, dim=0)", State("2d", 3, 0, True)),
    "item_head": (
        "n = (k > 0).sum().item()\ntorch._check(n >= 2)\ntorch._check(n <= x.shape[0])\nt = x[:n]",
        State("2d", 2, 0, True),
    ),
    "item_narrow": (
        "n = (k > 0).sum().item()\n"
        "torch._check(n >= 2)\n"
        "torch._check(n <= x.shape[0])\n"
        "t = x.narrow(0, x.shape[0] - n, n)",
        State("2d", 2, 0, True),
    ),
    "item_new": (
        "n = k.sum().item()\n"
        "torch._check(n >= 3)\n"
        "t = x.new_zeros(n, x.shape[1]) + torch.arange(n, dtype=x.dtype)[:, None] / 8",
        State("2d", 3, 0, False),
    ),
    "unique": ("t = torch.unique(k, sorted=True).to(x.dtype) / 4", State("1d", 2, 0, False)),
    "bincount": ("t = torch.bincount(k).to(x.dtype)", State("1d", 3, 0, False)),
}

STEPS: dict[str, Step] = {
    # slices: every spelling of start/stop/step a user writes
    "head": Step("t = t[1:]", ("1d", "2d"), lo="lo - 1", exact=True),
    "drop_last": Step("t = t[:-1]", ("1d", "2d"), lo="lo - 1", exact=True),
    "stop_expr": Step("t = t[: t.shape[0] - 1]", ("1d", "2d"), lo="lo - 1", exact=True),
    "step2": Step("t = t[::2]", ("1d", "2d"), lo="(lo + 1) // 2", exact=True),
    "odd": Step("t = t[1::2]", ("1d", "2d"), lo="lo // 2", exact=True),
    "last2": Step("t = t[-2:]", ("1d", "2d"), lo="min(lo, 2)", exact=True),
    "mid": Step("t = t[1 : t.shape[0] - 1]", ("1d", "2d"), lo="lo - 2", exact=True),
    "narrow": Step(
        "t = t.narrow(0, 1, t.shape[0] - 1)", ("1d", "2d"), need=1, lo="lo - 1", exact=True
    ),
    "split": Step(
        "t = t.split([1, t.shape[0] - 1])[1]", ("1d", "2d"), need=1, lo="lo - 1", exact=True
    ),
    "even_rows": Step(
        "t = t.index_select(0, torch.arange(0, t.shape[0], 2))",
        ("1d", "2d"),
        lo="(lo + 1) // 2",
        exact=True,
    ),
    # data movement
    "flip": Step("t = t.flip(0)", ("1d", "2d"), exact=True),
    "roll": Step("t = t.roll(1, 0)", ("1d", "2d"), exact=True),
    "cat_self": Step("t = torch.cat([t, t.flip(0)], 0)", ("1d", "2d"), lo="2 * lo", exact=True),
    "cat_x": Step("t = torch.cat([x, t], 0)", ("2d",), lo="lo + 3", exact=True),
    "repeat": Step(
        "t = t.repeat(2, *([1] * (t.dim() - 1)))", ("1d", "2d"), lo="2 * lo", exact=True
    ),
    "pad": Step("t = torch.nn.functional.pad(t, (0, 0, 1, 2))", ("2d",), lo="lo + 3"),
    "pad1": Step("t = torch.nn.functional.pad(t, (2, 1), value=0.5)", ("1d",), lo="lo + 3"),
    "transpose": Step("t = t.t().contiguous().t()", ("2d",), exact=True),
    "expand": Step("t = t.unsqueeze(0).expand(2, *t.shape).sum(0)", ("1d", "2d")),
    "clone_write": Step("t = t.clone()\nt[0] = t[-1] * 0.5", ("1d", "2d"), need=1),
    "gather0": Step(
        "t = t.gather(0, torch.zeros_like(t, dtype=torch.long))", ("1d", "2d"), need=1, exact=True
    ),
    # arithmetic with the size
    "scale_size": Step("t = t / t.shape[0]", ("1d", "2d"), need=1),
    "ramp": Step(
        "t = t + torch.arange(t.shape[0], dtype=t.dtype).reshape(-1, *([1] * (t.dim() - 1))) / 8",
        ("1d", "2d"),
    ),
    "full": Step("t = t * torch.full((t.shape[0],) + tuple(t.shape[1:]), 0.5)", ("1d", "2d")),
    "item_float": Step("t = t / (1 + t.abs().amax().item())", ("1d", "2d"), need=1),
    # scans and orderings
    "cumsum": Step("t = t.cumsum(0)", ("1d", "2d")),
    "cummax": Step("t = t.cummax(0).values", ("1d", "2d")),
    "sort": Step("t = t.sort(0).values", ("1d", "2d"), exact=True),
    "diff": Step("t = t.diff(dim=0)", ("1d", "2d"), need=1, lo="lo - 1"),
    "softmax": Step("t = t.softmax(0)", ("1d", "2d")),
    "where": Step("t = torch.where(t > 0, t, t * 0.25)", ("1d", "2d")),
    # reductions over the data-dependent dim
    "amax": Step("t = t.amax(0, keepdim=True)", ("1d", "2d"), need=1, lo="1"),
    "mean": Step("t = t.mean(0, keepdim=True)", ("1d", "2d"), need=1, lo="1"),
    "topk": Step("t = t.topk(1, dim=0).values", ("1d", "2d"), need=1, lo="1"),
    "logsumexp": Step("t = t.logsumexp(0, keepdim=True)", ("1d", "2d"), need=1, lo="1"),
    # layers over the data-dependent dim
    "matmul": Step(
        "t = t @ torch.linspace(-1, 1, t.shape[1] ** 2).reshape(t.shape[1], -1)", ("2d",)
    ),
    "gram": Step("t = t.t() @ t", ("2d",), lo="cols"),
    "layer_norm": Step("t = torch.nn.functional.layer_norm(t, (t.shape[1],))", ("2d",)),
    "conv1d": Step(
        "t = torch.nn.functional.conv1d(t.t()[None], torch.linspace(-1, 1, t.shape[1] ** 2 * 3)"
        ".reshape(t.shape[1], t.shape[1], 3), padding=1)[0].t()",
        ("2d",),
    ),
    "max_pool": Step(
        "t = torch.nn.functional.max_pool1d(t.t()[None], 2)[0].t()", ("2d",), need=2, lo="lo // 2"
    ),
    "avg_pool": Step(
        "t = torch.nn.functional.avg_pool1d(t.t()[None], 3, 2, 1)[0].t()",
        ("2d",),
        need=1,
        lo="(lo + 1) // 2",
    ),
    "interpolate": Step(
        "t = torch.nn.functional.interpolate(t.t()[None], scale_factor=2, mode='linear')[0].t()",
        ("2d",),
        need=1,
        lo="2 * lo",
    ),
    "sdpa": Step(
        "t = torch.nn.functional.scaled_dot_product_attention(t[None], t[None], t[None])[0]",
        ("2d",),
        need=1,
    ),
    "embedding": Step(
        "t = torch.nn.functional.embedding((t[:, 0] > 0).long(),"
        " torch.linspace(-1, 1, 2 * t.shape[1]).reshape(2, -1))",
        ("2d",),
        needs_exact=True,
        exact=False,
    ),
    # a second data-dependent size, from exact values only
    "mask_again": Step("t = t[t[:, 0] > {thr}]", ("2d",), lo="0", exact=True, needs_exact=True),
    "count_head": Step(
        "m = (t[:, 0] > 0).sum().item()\nt = t[:m]",
        ("2d",),
        lo="0",
        exact=True,
        needs_exact=True,
    ),
    # kind changes
    "flatten": Step("t = t.reshape(-1)", ("2d",), kind="1d", lo="lo * cols", exact=True),
    "column": Step("t = t[:, 0]", ("2d",), kind="1d", exact=True),
    "row_sum": Step("t = t.sum(1)", ("2d",), kind="1d"),
    "outer": Step("t = t[:, None] * torch.linspace(0.5, 1.5, {c})", ("1d",), kind="2d", cols="{c}"),
    "unfold": Step(
        "t = t.unfold(0, 2, 1)", ("1d",), need=2, kind="2d", lo="lo - 1", cols="2", exact=True
    ),
}


def _apply(step: Step, st: State, c: int) -> State:
    env = {"lo": st.lo, "cols": st.cols, "min": min}
    return State(
        kind=step.kind or st.kind,
        lo=max(0, eval(step.lo, {}, env)),  # noqa: S307 - our own literal table
        cols=int(step.cols.format(c=c)) if step.cols != "cols" else st.cols,
        exact=st.exact and step.exact,
    )


def _allowed(step: Step, st: State, cols_x: int) -> bool:
    if st.kind not in step.kinds or st.lo < step.need or (step.needs_exact and not st.exact):
        return False
    return not (step.code.startswith("t = torch.cat([x,") and st.cols != cols_x)


def _indent(code: str) -> list[str]:
    return ["    " + line for line in code.splitlines()]


def render(
    rng: random.Random,
    header: list[str],
    compile_kwargs: dict[str, object],
    config: dict[str, object] | None = None,
) -> tuple[str, list[str]]:
    """A function program ``fn(x, k)``: a producer, 2-4 steps, a follow-up, with one or two
    calls of different leading sizes. Returns the source and its notes (``chain:<producer>``,
    ``steps=a+b+...``, ``calls=N``)."""
    cols = rng.choice((2, 3, 4, 8))
    producer = rng.choice(sorted(PRODUCERS))
    code, st = PRODUCERS[producer]
    st = dataclasses.replace(st, cols=cols)
    body = _indent(code.format(thr=f"{rng.choice((-2, -1, 0, 1, 2)) / 8!r}"))
    names: list[str] = []
    for _ in range(rng.randint(2, 4)):
        options = [n for n in sorted(STEPS) if _allowed(STEPS[n], st, cols)]
        name = rng.choice(options)
        step = STEPS[name]
        c = rng.choice((2, 3, 4))
        body += _indent(step.code.format(thr=f"{rng.choice((-1, 0, 1)) / 8!r}", c=c))
        st = _apply(step, st, c)
        names.append(name)
    body += ["    out = " + rng.choice(FOLLOW).format(v="t"), "    return out, t.sum()"]
    rows = rng.randint(3, 7)
    seed = rng.randrange(10_000)
    ncalls = rng.choice((1, 2, 2))
    sizes = [rows] + [rng.choice([r for r in range(3, 10) if r != rows]) for _ in range(ncalls - 1)]

    def args(r: int, s: int) -> str:
        return f"[_grid(({r}, {cols}), {s}), _counts({r}, {s})]"

    settings = dict(CAPTURE_CONFIG)
    settings.update(config or {})
    lines = [f"# {h}" for h in header]
    lines += ["import torch", "", "", GRID_INPUT, "", COUNT_INPUT, ""]
    lines += ["def fn(x, k):", *body, "", ""]
    lines += calls_and_settings(args, sizes, seed, compile_kwargs, settings)
    notes = [f"chain:{producer}", "steps=" + "+".join(names), f"calls={ncalls}"]
    return "\n".join(lines) + "\n", notes
