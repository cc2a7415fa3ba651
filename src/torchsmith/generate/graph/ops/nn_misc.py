"""Other nn ops: interpolate (every mode), embedding, distances, attention, dropout in eval,
fold/unfold, channel shuffle."""

from __future__ import annotations

import math

from torchsmith.generate.graph.ops.conv_pool import spatial_input
from torchsmith.generate.graph.ops.linalg import dot_fit
from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import FLOAT_DTYPES, INT_DTYPES, Val, dtype_src, fmt, hull

_MODES = {
    # mode: (spatial dims accepted, supports align_corners, overshoot factor per dim)
    "nearest": ((1, 2, 3), False, 1.0),
    "nearest-exact": ((1, 2, 3), False, 1.0),
    "linear": ((1,), True, 1.0),
    "bilinear": ((2,), True, 1.0),
    "bicubic": ((2,), True, 1.5),
    "trilinear": ((3,), True, 1.0),
    "area": ((1, 2, 3), False, 1.0),
}


def _interp(mode: str) -> None:
    nds, corners, over = _MODES[mode]
    lo_r, hi_r = min(nds) + 2, max(nds) + 2
    name = "interpolate_" + mode.replace("-", "_")

    @op(name, "interpolate", ranks=(lo_r, hi_r), fresh_fn=spatial_input(max(nds), min_size=2))
    def build(b, x: Val) -> None:
        nd = x.rank - 2
        sp = x.shape[2:]
        need(all(s >= 1 for s in sp), "empty")
        if b.rng.random() < 0.5:
            f = b.rng.choice([2.0, 0.5, 1.5, 3.0] if mode != "area" else [2.0, 0.5])
            out = tuple(int(math.floor(s * f)) for s in sp)
            need(all(o >= 1 for o in out), "scaled to nothing")
            spec = f"scale_factor={f}"
        else:
            out = tuple(b.rng.randint(1, 2 * s + 1) for s in sp)
            spec = f"size={out if nd > 1 else out[0]}"
        need(math.prod(out) * x.shape[0] * x.shape[1] <= 8 * b.opts.max_numel, "too big")
        extra = ""
        if corners and b.rng.random() < 0.5:
            extra = f", align_corners={b.rng.choice([True, False])}"
        lo, hi = x.lo, x.hi
        if over > 1.0:
            m = x.absmax * over**nd
            lo, hi = -m, m
        shape = x.shape[:2] + out
        if b.rng.random() < 0.25 and "scale" in spec and mode != "area":
            layer = b.layer("up", f"nn.Upsample({spec}, mode='{mode}'{extra})")
            expr = f"{layer}({x.name})"
        else:
            expr = f"F.interpolate({x.name}, {spec}, mode='{mode}'{extra})"
        b.emit(expr, shape, x.dtype, lo, hi, tag="up", exact=mode.startswith("nearest") and x.exact)


for _m in _MODES:
    _interp(_m)


@op("embedding", "nn", dtypes=("int64", "int32"), ranks=(0, 3))
def _embedding(b, x: Val) -> None:
    if x.lo < 0 or x.hi > 255:
        x = b.clamp(x, 0, 31)
    n = int(x.hi) + 1 + b.rng.randint(0, 3)
    dim = b.rng.choice([2, 4, 8, 16])
    need(x.numel * dim <= 4 * b.opts.max_numel, "too big")
    shape = x.shape + (dim,)
    if b.rng.random() < 0.7:
        pad = f", padding_idx={b.rng.randrange(n)}" if b.rng.random() < 0.3 else ""
        layer = b.layer("emb", f"nn.Embedding({n}, {dim}{pad})")
        b.emit(f"{layer}({x.name})", shape, "float32", -7.0, 7.0, tag="emb")
    else:
        w = b.param((n, dim), "float32", 1.0)
        b.emit(f"F.embedding({x.name}, {w.name})", shape, "float32", -1.0, 1.0, tag="emb")


@op("pairwise_distance", "nn", ranks=(1, 2))
def _pairwise(b, x: Val) -> None:
    y = b.operand(x.shape, x.dtype, avoid=x)
    p = b.rng.choice([1.0, 2.0])
    lim = 20.0 if x.dtype == "float16" else 1e3  # the squared norms must not overflow
    x, y = b.bounded(x, lim), b.bounded(y, lim)
    d = x.shape[-1]
    hi = (x.absmax + y.absmax + 1e-6) * d ** (1 / p) * 1.001 + 1e-3
    shape = x.shape[:-1]
    if b.rng.random() < 0.4:
        layer = b.layer("pdist", f"nn.PairwiseDistance(p={p})")
        expr = f"{layer}({x.name}, {y.name})"
    else:
        expr = f"F.pairwise_distance({x.name}, {y.name}, p={p})"
    b.emit(expr, shape, x.dtype, 0.0, hi, tag="dist")


@op("cdist", "nn", ranks=(2, 3), dtypes=("float32", "float64"))
def _cdist(b, x: Val) -> None:
    r = b.rng.randint(1, 8)
    y = b.operand(x.shape[:-2] + (r, x.shape[-1]), x.dtype, broadcast=False, avoid=x)
    p = b.rng.choice([1.0, 2.0])
    x, y = b.bounded(x, 1e3), b.bounded(y, 1e3)
    hi = (x.absmax + y.absmax) * x.shape[-1] ** (1 / p) * 1.001 + 1e-3
    b.emit(
        f"torch.cdist({x.name}, {y.name}, p={p})",
        x.shape[:-1] + (r,),
        x.dtype,
        0.0,
        hi,
        tag="cdist",
    )


@op("cosine_similarity", "nn", ranks=(1, 4))
def _cosine(b, x: Val) -> None:
    y = b.operand(x.shape, x.dtype, avoid=x)
    lim = 20.0 if x.dtype == "float16" else 1e3  # the squared norms must not overflow
    x, y = b.bounded(x, lim), b.bounded(y, lim)
    d = b.rng.randrange(x.rank)
    shape = tuple(s for i, s in enumerate(x.shape) if i != d)
    b.emit(
        f"F.cosine_similarity({x.name}, {y.name}, dim={d})", shape, x.dtype, -1.0, 1.0, tag="cos"
    )


@op("sdpa", "attention", ranks=(2, 4))
def _sdpa(b, x: Val) -> None:
    lq, e = x.shape[-2], x.shape[-1]
    need(lq >= 1 and e >= 1, "empty")
    s = b.rng.choice([lq, b.rng.randint(1, 12)])
    ev = b.rng.choice([e, 4, 8])
    batch = x.shape[:-2]
    k = b.operand(batch + (s, e), x.dtype, broadcast=False, avoid=x)
    v = b.operand(batch + (s, ev), x.dtype, broadcast=False, avoid=x)
    x, k = b.bounded(x, 4.0), b.bounded(k, 4.0)
    args = [x.name, k.name, v.name]
    r = b.rng.random()
    if r < 0.3:
        args.append("is_causal=True")
    elif r < 0.5:
        mask = b.bounded(b.operand((lq, s), x.dtype, avoid=x), 4.0)
        args.append(f"attn_mask={mask.name}")
    if b.rng.random() < 0.3:
        args.append("scale=0.5")
    b.emit(
        f"F.scaled_dot_product_attention({', '.join(args)})",
        batch + (lq, ev),
        x.dtype,
        v.lo,
        v.hi,
        tag="attn",
    )


@op("dropout_eval", "nn", dtypes=FLOAT_DTYPES)
def _dropout(b, x: Val) -> None:
    fn = b.rng.choice(
        ["F.dropout", "F.alpha_dropout", "F.feature_alpha_dropout"]
        if x.rank >= 2
        else ["F.dropout"]
    )
    b.same_values(x, f"{fn}({x.name}, p=0.3, training=False)", tag="drop")


@op("unfold", "nn", ranks=(3, 4), fresh_fn=spatial_input(2))
def _unfold(b, x: Val) -> None:
    sp = x.shape[-2:]
    k = b.rng.randint(1, min(3, min(sp)))
    need(k >= 1, "empty")
    s = b.rng.choice([1, 2])
    p = b.rng.randint(0, k // 2)
    count = math.prod((n + 2 * p - k) // s + 1 for n in sp)
    c = x.shape[-3]
    shape = x.shape[:-3] + (c * k * k, count)
    lo, hi = (min(x.lo, 0.0), max(x.hi, 0.0)) if p else (x.lo, x.hi)
    b.emit(
        f"F.unfold({x.name}, kernel_size={k}, padding={p}, stride={s})",
        shape,
        x.dtype,
        lo,
        hi,
        tag="cols",
        exact=x.exact,
    )


@op("fold", "nn", ranks=(3, 3))
def _fold(b, x: Val) -> None:
    ck, n_blocks = x.shape[1], x.shape[2]
    ks = [k for k in (1, 2, 3) if ck % (k * k) == 0]
    k = b.rng.choice(ks)
    facs = [a for a in range(1, n_blocks + 1) if n_blocks % a == 0]
    a = b.rng.choice(facs)
    bb = n_blocks // a
    out = (a + k - 1, bb + k - 1)
    lo, hi = hull((x.lo * k * k, x.hi * k * k), (x.lo, x.hi))
    shape = (x.shape[0], ck // (k * k)) + out
    b.emit(
        f"F.fold({x.name}, output_size={out}, kernel_size={k})",
        shape,
        x.dtype,
        min(lo, 0.0),
        max(hi, 0.0),
        tag="img",
    )


@op("channel_shuffle", "nn", ranks=(3, 5), fresh_fn=spatial_input(2))
def _channel_shuffle(b, x: Val) -> None:
    c = x.shape[1]
    gs = [g for g in (2, 3, 4) if c % g == 0]
    need(bool(gs), "channels not divisible")
    g = b.rng.choice(gs)
    layer = b.layer("shuffle", f"nn.ChannelShuffle({g})")
    b.same_values(x, f"{layer}({x.name})", tag="shuf", view=False)


_ = (INT_DTYPES, dtype_src, fmt, dot_fit)
