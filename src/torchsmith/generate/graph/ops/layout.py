"""Shape and layout ops: views, permutations, concatenation, slicing, padding ..."""

from __future__ import annotations

import math

from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import ALL_DTYPES, FLOAT_DTYPES, Val, fmt, hull

ANY = ALL_DTYPES


def factor_shape(b, n: int, max_rank: int) -> tuple[int, ...]:
    """A random shape with ``n`` elements and at most ``max_rank`` dims."""
    primes, m, p = [], n, 2
    while m > 1 and p * p <= m:
        while m % p == 0:
            primes.append(p)
            m //= p
        p += 1
    if m > 1:
        primes.append(m)
    rank = b.rng.randint(1, max(1, max_rank))
    dims = [1] * rank
    for f in primes:
        dims[b.rng.randrange(rank)] *= f
    return tuple(dims)


def _new_shape(b, x: Val) -> tuple[int, ...]:
    for _ in range(4):
        s = factor_shape(b, x.numel, b.opts.max_rank)
        if s != x.shape:
            return s
    return (x.numel,)


def _shape_arg(b, shape: tuple[int, ...]) -> str:
    if len(shape) >= 1 and b.rng.random() < 0.3:
        i = b.rng.randrange(len(shape))
        parts = [str(s) if j != i else "-1" for j, s in enumerate(shape)]
        return ", ".join(parts) if len(parts) > 1 else f"{parts[0]}"
    return ", ".join(str(s) for s in shape) if shape else "()"


@op("view", "layout", dtypes=ANY)
def _view(b, x: Val) -> None:
    need(b.tensor(x).is_contiguous(), "view needs a contiguous tensor")
    shape = _new_shape(b, x)
    b.same_values(x, f"{x.name}.view({_shape_arg(b, shape)})", shape, tag="view")


@op("reshape", "layout", dtypes=ANY)
def _reshape(b, x: Val) -> None:
    shape = _new_shape(b, x)
    form = b.rng.choice(
        [f"{x.name}.reshape({_shape_arg(b, shape)})", f"torch.reshape({x.name}, {tuple(shape)})"]
    )
    b.same_values(x, form, shape, tag="reshape")


@op("permute", "layout", dtypes=ANY, ranks=(2, 6))
def _permute(b, x: Val) -> None:
    perm = list(range(x.rank))
    while perm == sorted(perm):
        b.rng.shuffle(perm)
    shape = tuple(x.shape[p] for p in perm)
    b.same_values(x, f"{x.name}.permute({', '.join(map(str, perm))})", shape, tag="perm")


@op("transpose", "layout", dtypes=ANY, ranks=(2, 6))
def _transpose(b, x: Val) -> None:
    i, j = b.rng.sample(range(x.rank), 2)
    s = list(x.shape)
    s[i], s[j] = s[j], s[i]
    if x.rank == 2 and b.rng.random() < 0.3:
        form = f"{x.name}.t()"
    else:
        form = b.rng.choice(
            [f"{x.name}.transpose({i}, {j})", f"torch.swapaxes({x.name}, {i}, {j})"]
        )
    b.same_values(x, form, s, tag="tr")


@op("movedim", "layout", dtypes=ANY, ranks=(2, 6))
def _movedim(b, x: Val) -> None:
    i, j = b.rng.sample(range(x.rank), 2)
    order = [d for d in range(x.rank) if d != i]
    order.insert(j, i)
    b.same_values(x, f"torch.movedim({x.name}, {i}, {j})", [x.shape[d] for d in order], tag="moved")


@op("expand", "layout", dtypes=ANY, ranks=(0, 5))
def _expand(b, x: Val) -> None:
    shape = list(x.shape)
    ones = [i for i, s in enumerate(shape) if s == 1]
    for i in ones:
        shape[i] = b.rng.randint(2, 6)
    lead = [] if ones and b.rng.random() < 0.6 else [b.rng.randint(2, 4)]
    new = tuple(lead + shape)
    need(math.prod(new) <= 4 * b.opts.max_numel and len(new) <= 6, "too big")
    form = b.rng.choice(
        [f"{x.name}.expand({', '.join(map(str, new))})", f"{x.name}.expand({tuple(new)})"]
    )
    b.same_values(x, form, new, tag="exp", distinct=False)


@op("squeeze", "layout", dtypes=ANY, ranks=(1, 6))
def _squeeze(b, x: Val) -> None:
    ones = [i for i, s in enumerate(x.shape) if s == 1]
    if ones and b.rng.random() < 0.3:
        shape = tuple(s for s in x.shape if s != 1)
        b.same_values(x, f"{x.name}.squeeze()", shape, tag="sq")
        return
    d = b.rng.choice(ones) if ones else b.rng.randrange(x.rank)  # squeezing a non-1 dim is a no-op
    shape = tuple(s for i, s in enumerate(x.shape) if not (i == d and s == 1))
    b.same_values(x, f"torch.squeeze({x.name}, {d})", shape, tag="sq")


@op("unsqueeze", "layout", dtypes=ANY, ranks=(0, 5))
def _unsqueeze(b, x: Val) -> None:
    d = b.rng.randint(0, x.rank)
    shape = list(x.shape)
    shape.insert(d, 1)
    if b.rng.random() < 0.3:
        idx = ", ".join([":"] * d + ["None"])
        form = f"{x.name}[{idx}]"
    else:
        form = f"{x.name}.unsqueeze({d})"
    b.same_values(x, form, shape, tag="unsq")


@op("flatten", "layout", dtypes=ANY, ranks=(2, 6))
def _flatten(b, x: Val) -> None:
    s = b.rng.randrange(x.rank - 1)
    e = b.rng.randint(s + 1, x.rank - 1)
    shape = x.shape[:s] + (math.prod(x.shape[s : e + 1]),) + x.shape[e + 1 :]
    end = "" if e == x.rank - 1 and b.rng.random() < 0.5 else f", {e}"
    b.same_values(x, f"torch.flatten({x.name}, {s}{end})", shape, tag="flat")


@op("unflatten", "layout", dtypes=ANY, ranks=(1, 4))
def _unflatten(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    n = x.shape[d]
    divs = [k for k in range(2, n) if n % k == 0]
    need(bool(divs), "prime size")
    k = b.rng.choice(divs)
    shape = x.shape[:d] + (k, n // k) + x.shape[d + 1 :]
    b.same_values(x, f"{x.name}.unflatten({d}, ({k}, {n // k}))", shape, tag="unflat")


def _pieces(b, x: Val, d: int, sizes: list[int], expr: str, tag: str) -> None:
    outs = []
    for s in sizes:
        shape = tuple(s if i == d else v for i, v in enumerate(x.shape))
        outs.append((tag, shape, x.dtype, x.lo, x.hi, x.exact, x.distinct))
    b.emit_multi(expr, outs, view_of=x)


@op("chunk", "layout", dtypes=ANY, ranks=(1, 6))
def _chunk(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    n = x.shape[d]
    need(n >= 2, "too small")
    k = b.rng.randint(2, min(4, n))
    c = math.ceil(n / k)
    count = math.ceil(n / c)
    sizes = [c] * (count - 1) + [n - c * (count - 1)]
    _pieces(b, x, d, sizes, f"torch.chunk({x.name}, {k}, dim={d})", "part")


@op("split", "layout", dtypes=ANY, ranks=(1, 6))
def _split(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    n = x.shape[d]
    need(n >= 2, "too small")
    if b.rng.random() < 0.5:
        first = b.rng.randint(1, n - 1)
        sizes = [first, n - first]
        _pieces(b, x, d, sizes, f"torch.split({x.name}, {sizes}, dim={d})", "piece")
        return
    s = b.rng.randint(max(1, math.ceil(n / 4)), n - 1)
    sizes = [s] * (n // s) + ([n % s] if n % s else [])
    _pieces(b, x, d, sizes, f"{x.name}.split({s}, dim={d})", "piece")


def _joined(b, fn: str, parts: list[Val], d: int, shape: list[int], *, tag: str) -> Val:
    """``fn([parts...], dim=d)`` for a cat-like ``fn``: the hull of the parts' ranges, exact when
    every part is."""
    lo, hi = hull(*[(p.lo, p.hi) for p in parts])
    return b.emit(
        f"{fn}([{', '.join(p.name for p in parts)}], dim={d})",
        tuple(shape),
        parts[0].dtype,
        lo,
        hi,
        tag=tag,
        exact=all(p.exact for p in parts),
    )


@op("cat", "layout", dtypes=ANY, ranks=(1, 6))
def _cat(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    parts = [x]
    for _ in range(b.rng.randint(1, 2)):
        shape = list(x.shape)
        if b.rng.random() < 0.5:
            shape[d] = b.rng.randint(1, 6)
        parts.append(b.operand(tuple(shape), x.dtype, broadcast=False, avoid=x))
    total = list(x.shape)
    total[d] = sum(p.shape[d] for p in parts)
    fn = b.rng.choice(["torch.cat", "torch.concat"])
    _joined(b, fn, parts, d, total, tag="cat")


@op("stack", "layout", dtypes=ANY, ranks=(0, 5))
def _stack(b, x: Val) -> None:
    d = b.rng.randint(0, x.rank)
    parts = [x] + [
        b.operand(x.shape, x.dtype, broadcast=False, avoid=x) for _ in range(b.rng.randint(1, 2))
    ]
    shape = list(x.shape)
    shape.insert(d, len(parts))
    _joined(b, "torch.stack", parts, d, shape, tag="stack")


@op("narrow", "layout", dtypes=ANY, ranks=(1, 6))
def _narrow(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    n = x.shape[d]
    need(n >= 2, "too small")
    length = b.rng.randint(1, n - 1)
    start = b.rng.randint(0, n - length)
    shape = tuple(length if i == d else s for i, s in enumerate(x.shape))
    b.same_values(x, f"{x.name}.narrow({d}, {start}, {length})", shape, tag="nar")


@op("slice", "layout", dtypes=ANY, ranks=(1, 6))
def _slice(b, x: Val) -> None:
    idx, shape = [], []
    for n in x.shape:
        r = b.rng.random()
        if r < 0.45 or n < 2:
            idx.append(":")
            shape.append(n)
        elif r < 0.75:
            step = b.rng.randint(2, 3)
            start = b.rng.randint(0, min(step, n) - 1)
            idx.append(f"{start or ''}::{step}")
            shape.append(len(range(start, n, step)))
        else:
            start = b.rng.randint(0, n - 1)
            stop = b.rng.randint(start + 1, n)
            stop_s = (
                str(stop - n)
                if stop < n and b.rng.random() < 0.5
                else ("" if stop == n else str(stop))
            )
            idx.append(f"{start or ''}:{stop_s}")
            shape.append(stop - start)
    while idx and idx[-1] == ":" and len(idx) > 1:
        idx.pop()
    need(tuple(shape) != x.shape, "no-op slice")
    b.same_values(x, f"{x.name}[{', '.join(idx)}]", shape, tag="sl")


@op("select", "layout", dtypes=ANY, ranks=(1, 6))
def _select(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    n = x.shape[d]
    need(n >= 1, "empty")
    i = b.rng.randrange(n)
    if b.rng.random() < 0.3:
        i = i - n
    shape = x.shape[:d] + x.shape[d + 1 :]
    form = (
        f"{x.name}.select({d}, {i})"
        if b.rng.random() < 0.5
        else f"{x.name}[{', '.join([':'] * d + [str(i)])}]"
    )
    b.same_values(x, form, shape, tag="sel")


@op("flip", "layout", dtypes=ANY, ranks=(1, 6))
def _flip(b, x: Val) -> None:
    dims = sorted(b.rng.sample(range(x.rank), b.rng.randint(1, min(2, x.rank))))
    b.same_values(x, f"torch.flip({x.name}, dims={dims})", x.shape, tag="flip", view=False)


@op("roll", "layout", dtypes=ANY, ranks=(1, 6))
def _roll(b, x: Val) -> None:
    if b.rng.random() < 0.2:
        b.same_values(
            x, f"torch.roll({x.name}, {b.rng.randint(-5, 5)})", x.shape, tag="roll", view=False
        )
        return
    d = b.rng.randrange(x.rank)
    s = b.rng.randint(-x.shape[d] - 1, x.shape[d] + 1)
    b.same_values(x, f"torch.roll({x.name}, shifts={s}, dims={d})", x.shape, tag="roll", view=False)


@op("repeat", "layout", dtypes=ANY, ranks=(1, 4))
def _repeat(b, x: Val) -> None:
    reps = [b.rng.choice([1, 1, 2, 3]) for _ in range(x.rank)]
    if b.rng.random() < 0.3:
        reps.insert(0, 2)
    shape = [r * s for r, s in zip(reps[-x.rank :], x.shape)]
    shape = reps[: len(reps) - x.rank] + shape
    need(math.prod(shape) <= 4 * b.opts.max_numel, "too big")
    form = b.rng.choice(
        [f"{x.name}.repeat({', '.join(map(str, reps))})", f"torch.tile({x.name}, {tuple(reps)})"]
    )
    b.same_values(x, form, shape, tag="rep", view=False, distinct=False)


@op("repeat_interleave", "layout", dtypes=ANY, ranks=(1, 4))
def _repeat_interleave(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    r = b.rng.randint(2, 3)
    shape = tuple(s * r if i == d else s for i, s in enumerate(x.shape))
    need(math.prod(shape) <= 4 * b.opts.max_numel, "too big")
    b.same_values(
        x,
        f"{x.name}.repeat_interleave({r}, dim={d})",
        shape,
        tag="rint",
        view=False,
        distinct=False,
    )


def _tri(name: str) -> None:
    @op(name, "layout", dtypes=ANY, ranks=(2, 5))
    def build(b, x: Val) -> None:
        k = b.rng.randint(-2, 2)
        lo, hi = (0.0, 1.0) if x.is_bool else (min(x.lo, 0.0), max(x.hi, 0.0))
        b.emit(
            f"torch.{name}({x.name}, diagonal={k})",
            x.shape,
            x.dtype,
            lo,
            hi,
            tag=name,
            exact=x.exact,
        )


_tri("tril")
_tri("triu")


@op("diagonal", "layout", dtypes=ANY, ranks=(2, 5))
def _diagonal(b, x: Val) -> None:
    d1, d2 = sorted(b.rng.sample(range(x.rank), 2))
    off = b.rng.randint(-1, 1)
    n1, n2 = x.shape[d1], x.shape[d2]
    length = max(0, min(n1, n2 - off) if off >= 0 else min(n1 + off, n2))
    need(length >= 1, "empty diagonal")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in (d1, d2)) + (length,)
    b.same_values(
        x, f"torch.diagonal({x.name}, offset={off}, dim1={d1}, dim2={d2})", shape, tag="diag"
    )


@op("contiguous", "layout", dtypes=ANY)
def _contiguous(b, x: Val) -> None:
    form = b.rng.choice([f"{x.name}.contiguous()", f"{x.name}.clone()"])
    b.same_values(x, form, x.shape, tag="cont", view=form.endswith("contiguous()"))


@op("tensor_unfold", "layout", dtypes=ANY, ranks=(1, 4))
def _tensor_unfold(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    n = x.shape[d]
    need(n >= 2, "too small")
    size = b.rng.randint(1, min(n, 4))
    step = b.rng.randint(1, 3)
    count = (n - size) // step + 1
    shape = tuple(count if i == d else s for i, s in enumerate(x.shape)) + (size,)
    b.same_values(
        x, f"{x.name}.unfold({d}, {size}, {step})", shape, tag="win", distinct=step >= size
    )


def _pad(mode: str) -> None:
    batch_ranks = {"reflect": (1, 2), "replicate": (1, 2), "circular": (1, 2), "constant": (0, 3)}

    @op(f"pad_{mode}", "layout", dtypes=FLOAT_DTYPES if mode != "constant" else ANY, ranks=(1, 5))
    def build(b, x: Val) -> None:
        if mode == "constant":
            k = b.rng.randint(1, min(3, x.rank))
        else:
            k = x.rank - b.rng.choice(batch_ranks[mode])
            need(1 <= k <= 3, "rank")
        pads, shape = [], list(x.shape)
        for i in range(k):
            d = x.rank - 1 - i
            n = x.shape[d]
            if mode == "reflect":
                limit = n - 1
            elif mode == "circular":
                limit = n
            else:
                limit = 3
            lo_p, hi_p = b.rng.randint(0, limit), b.rng.randint(0, limit)
            if mode == "constant" and n >= 3 and b.rng.random() < 0.15:
                lo_p = -1  # negative padding crops
            pads += [min(lo_p, 3), min(hi_p, 3)]
            shape[d] = n + pads[-2] + pads[-1]
        need(all(s >= 1 for s in shape), "cropped away")
        if mode == "constant":
            if x.is_bool:
                value = "False"
                v = 0.0
            else:
                v = 0.0 if b.rng.random() < 0.6 else (1 if x.is_int else 0.5)
                value = str(v) if x.is_int else fmt(v)
            lo, hi = (0.0, 1.0) if x.is_bool else (min(x.lo, v), max(x.hi, v))
            if b.rng.random() < 0.5 and v == 0.0:
                expr = f"F.pad({x.name}, {tuple(pads)})"
            else:
                expr = f"F.pad({x.name}, {tuple(pads)}, mode='constant', value={value})"
        else:
            lo, hi = x.lo, x.hi
            expr = f"F.pad({x.name}, {tuple(pads)}, mode='{mode}')"
        b.emit(expr, tuple(shape), x.dtype, lo, hi, tag="pad", exact=x.exact)


for _m in ("constant", "reflect", "replicate", "circular"):
    _pad(_m)


@op("pixel_shuffle", "layout", dtypes=ANY, ranks=(3, 5))
def _pixel_shuffle(b, x: Val) -> None:
    c = x.shape[-3]
    rs = [r for r in (2, 3) if c % (r * r) == 0]
    need(bool(rs), "channels not divisible by r^2")
    r = b.rng.choice(rs)
    shape = x.shape[:-3] + (c // (r * r), x.shape[-2] * r, x.shape[-1] * r)
    b.same_values(x, f"F.pixel_shuffle({x.name}, {r})", shape, tag="shuf", view=False)


@op("pixel_unshuffle", "layout", dtypes=ANY, ranks=(3, 5))
def _pixel_unshuffle(b, x: Val) -> None:
    h, w = x.shape[-2], x.shape[-1]
    rs = [r for r in (2, 3) if h % r == 0 and w % r == 0]
    need(bool(rs), "spatial size not divisible by r")
    r = b.rng.choice(rs)
    shape = x.shape[:-3] + (x.shape[-3] * r * r, h // r, w // r)
    b.same_values(x, f"F.pixel_unshuffle({x.name}, {r})", shape, tag="unshuf", view=False)
