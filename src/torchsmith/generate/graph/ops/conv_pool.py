"""Convolutions (1d/2d/3d, transposed) and pooling (max, avg, adaptive; 1d/2d/3d).

Layers are ``nn`` modules built in ``__init__``; their default initialisation bounds the weights
by ``1/sqrt(fan_in)``, which gives the output range.
"""

from __future__ import annotations

import math

from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import FLOAT_DTYPES, Val, dtype_src, fits

SPATIAL_MIN = 3


def spatial_input(nd: int, batched: bool = True, min_size: int = 4, dtypes=FLOAT_DTYPES):
    """A fresh-input maker for ops over ``nd`` spatial dims: (N, C, *spatial)."""

    def make(b) -> Val:
        for _ in range(10):
            c = b.rng.choice([1, 2, 3, 4, 6, 8])
            sp = [b.rng.randint(min_size, max(min_size, 12 if nd < 3 else 7)) for _ in range(nd)]
            shape = ([b.rng.randint(1, 2)] if batched else []) + [c] + sp
            if math.prod(shape) <= b.opts.max_numel:
                break
        dt = b.pick_dtype(b.allowed(dtypes))
        return b.new_input(tuple(shape), dt)

    return make


def _dt(x: Val) -> str:
    return "" if x.dtype == "float32" else f", dtype={dtype_src(x.dtype)}"


def _out_len(n: int, k: int, s: int, p: int, d: int, ceil: bool = False) -> int:
    eff = d * (k - 1) + 1
    num = n + 2 * p - eff
    if num < 0:
        return 0
    out = (-(-num // s) if ceil else num // s) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def _bound_input(b, x: Val, fan: int) -> Val:
    limit = 1e3 if x.dtype != "float16" else 1e4 / (4 * math.sqrt(fan))
    return b.bounded(x, limit) if x.absmax > limit else x


def _conv(nd: int) -> None:
    @op(f"conv{nd}d", "conv", ranks=(nd + 1, nd + 2), min_numel=2, fresh_fn=spatial_input(nd))
    def build(b, x: Val) -> None:
        cin = x.shape[-nd - 1]
        sp = x.shape[-nd:]
        need(cin >= 1 and all(s >= 1 for s in sp), "empty")
        gs = [g for g in (1, 2, 3, 4) if cin % g == 0]
        g = b.rng.choice(gs) if b.rng.random() < 0.4 else 1
        cout = g * b.rng.choice([1, 2, 3, 4])
        k = b.rng.choice([1, 2, 3, 3, 5])
        s = b.rng.choice([1, 1, 2])
        d = b.rng.choice([1, 1, 1, 2])
        mode = b.rng.choice(["zeros"] * 5 + ["reflect", "replicate", "circular"])
        p = b.rng.randint(0, (d * (k - 1)) // 2 + (1 if mode == "zeros" else 0))
        if mode == "reflect":
            p = min(p, min(sp) - 1)
        elif mode == "circular":
            p = min(p, min(sp))
        same = mode == "zeros" and s == 1 and d * (k - 1) % 2 == 0 and b.rng.random() < 0.15
        out = tuple(_out_len(n, k, s, p, d) for n in sp)
        if same:
            out = sp
        need(all(o >= 1 for o in out), "kernel larger than input")
        fan = cin // g * k**nd
        wb = 1 / math.sqrt(fan)
        x = _bound_input(b, x, fan)
        m = x.absmax * fan * wb + wb
        bias = b.rng.random() < 0.8
        args = [str(cin), str(cout), str(k)]
        if s != 1:
            args.append(f"stride={s}")
        args.append("padding='same'" if same else f"padding={p}")
        if d != 1:
            args.append(f"dilation={d}")
        if g != 1:
            args.append(f"groups={g}")
        if not bias:
            args.append("bias=False")
        if mode != "zeros":
            args.append(f"padding_mode='{mode}'")
        layer = b.layer("conv", f"nn.Conv{nd}d({', '.join(args)}{_dt(x)})")
        shape = x.shape[: -nd - 1] + (cout,) + out
        b.emit(f"{layer}({x.name})", shape, x.dtype, -m, m, tag="conv")


def _conv_t(nd: int) -> None:
    @op(
        f"conv_transpose{nd}d",
        "conv",
        ranks=(nd + 1, nd + 2),
        min_numel=2,
        fresh_fn=spatial_input(nd, min_size=2),
    )
    def build(b, x: Val) -> None:
        cin = x.shape[-nd - 1]
        sp = x.shape[-nd:]
        need(cin >= 1 and all(n >= 1 for n in sp), "empty")
        gs = [g for g in (1, 2, 4) if cin % g == 0]
        g = b.rng.choice(gs) if b.rng.random() < 0.3 else 1
        cout = g * b.rng.choice([1, 2, 3])
        k = b.rng.choice([1, 2, 3, 4])
        s = b.rng.choice([1, 2, 2, 3])
        d = b.rng.choice([1, 1, 2])
        p = b.rng.randint(0, (d * (k - 1)) // 2)
        op_ = b.rng.randint(0, max(s, d) - 1) if b.rng.random() < 0.3 else 0
        out = tuple((n - 1) * s - 2 * p + d * (k - 1) + op_ + 1 for n in sp)
        need(all(o >= 1 for o in out), "empty output")
        need(math.prod(out) * cout <= 8 * b.opts.max_numel, "too big")
        fan = cout // g * k**nd
        wb = 1 / math.sqrt(fan)
        terms = cin // g * k**nd
        x = _bound_input(b, x, terms)
        m = x.absmax * terms * wb + wb
        args = [str(cin), str(cout), str(k)]
        for name, v, default in (
            ("stride", s, 1),
            ("padding", p, 0),
            ("output_padding", op_, 0),
            ("groups", g, 1),
            ("dilation", d, 1),
        ):
            if v != default:
                args.append(f"{name}={v}")
        layer = b.layer("deconv", f"nn.ConvTranspose{nd}d({', '.join(args)}{_dt(x)})")
        shape = x.shape[: -nd - 1] + (cout,) + out
        b.emit(f"{layer}({x.name})", shape, x.dtype, -m, m, tag="deconv")


def _pool(kind: str, nd: int) -> None:
    dts = (
        ("float32", "float64") if (kind, nd) == ("avg", 3) else FLOAT_DTYPES
    )  # no half kernels on CPU

    @op(
        f"{kind}_pool{nd}d",
        "pool",
        ranks=(nd + 1, nd + 2),
        dtypes=dts,
        fresh_fn=spatial_input(nd, dtypes=dts),
    )
    def build(b, x: Val) -> None:
        sp = x.shape[-nd:]
        need(all(n >= 1 for n in sp), "empty")
        k = b.rng.randint(1, min(3, min(sp)))
        s = b.rng.choice([None, 1, 2])
        st = s or k
        p = b.rng.randint(0, k // 2)
        d = b.rng.choice([1, 1, 2]) if kind == "max" else 1
        ceil = b.rng.random() < 0.3
        out = tuple(_out_len(n, k, st, p, d, ceil) for n in sp)
        need(all(o >= 1 for o in out), "window larger than input")
        args = [x.name, f"kernel_size={k}"]
        if s is not None:
            args.append(f"stride={s}")
        if p:
            args.append(f"padding={p}")
        if d != 1:
            args.append(f"dilation={d}")
        if ceil:
            args.append("ceil_mode=True")
        shape = x.shape[:-nd] + out
        if kind == "max":
            if x.distinct and b.rng.random() < 0.3:
                outs = [
                    ("pool", shape, x.dtype, x.lo, x.hi, x.exact, False),
                    ("pool_idx", shape, "int64", 0.0, float(math.prod(sp) - 1), True, False),
                ]
                b.emit_multi(f"F.max_pool{nd}d({', '.join(args)}, return_indices=True)", outs)
                return
            lo, hi = x.lo, x.hi
        else:
            if b.rng.random() < 0.3:
                args.append("count_include_pad=False")
            lo, hi = min(x.lo, 0.0), max(x.hi, 0.0)
        if b.rng.random() < 0.5:
            layer = b.layer("pool", f"nn.{kind.capitalize()}Pool{nd}d({', '.join(args[1:])})")
            expr = f"{layer}({x.name})"
        else:
            expr = f"F.{kind}_pool{nd}d({', '.join(args)})"
        b.emit(expr, shape, x.dtype, lo, hi, tag="pool", exact=kind == "max" and x.exact)


def _adaptive(kind: str, nd: int) -> None:
    @op(f"adaptive_{kind}_pool{nd}d", "pool", ranks=(nd + 1, nd + 2), fresh_fn=spatial_input(nd))
    def build(b, x: Val) -> None:
        sp = x.shape[-nd:]
        need(all(n >= 1 for n in sp), "empty")
        out = tuple(b.rng.randint(1, n + 2) for n in sp)
        size = out[0] if nd == 1 or b.rng.random() < 0.3 and len(set(out)) == 1 else out
        out = out if not isinstance(size, int) else (size,) * nd
        shape = x.shape[:-nd] + out
        fn = f"F.adaptive_{kind}_pool{nd}d"
        b.emit(
            f"{fn}({x.name}, {size})",
            shape,
            x.dtype,
            x.lo,
            x.hi,
            tag="apool",
            exact=kind == "max" and x.exact,
        )


for _nd in (1, 2, 3):
    _conv(_nd)
    _conv_t(_nd)
    _pool("max", _nd)
    _pool("avg", _nd)
    _adaptive("avg", _nd)
    _adaptive("max", _nd)


@op("lp_pool2d", "pool", ranks=(3, 4), fresh_fn=spatial_input(2))
def _lp_pool(b, x: Val) -> None:
    sp = x.shape[-2:]
    k = b.rng.randint(1, min(3, min(sp)))
    need(k >= 1, "empty")
    x = b.positive(x, 0.5)
    x = b.bounded(x, 50.0)
    out = tuple(_out_len(n, k, k, 0, 1) for n in sp)
    hi = x.absmax * (k * k) ** 0.5
    need(fits(x.dtype, 0.0, hi * hi * k * k), "too wide")
    b.emit(f"F.lp_pool2d({x.name}, 2, {k})", x.shape[:-2] + out, x.dtype, 0.0, hi, tag="lpool")
