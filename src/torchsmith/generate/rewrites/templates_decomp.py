"""The ``decomp_op`` template: one op that Inductor decomposes (its decomposition table, read from
the installed torch by :mod:`torchsmith.generate.rewrites.catalog`), called with its keyword
arguments varied (``alpha``/``beta``, ``reduction``, ``correction``, ``align_corners``, ``eps``,
``dim``/``keepdim``, ...), on float dtypes, odd and size-1 shapes and strided layouts.

A decomposition is a rewrite too: wrong for one keyword, dtype or broadcast, it is a silent
bug. Inputs stay on the defined side (``notes/edge-values.md``): logs and fractional powers get
positive arguments, probabilities lie in (0, 1), degrees of freedom stay positive.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from torchsmith.generate.rewrites.base import Spec, Template, fmt, pick_float, pick_layout, tensor

LOWP = ("float32", "float64", "float16", "bfloat16")
FULL = ("float32", "float64")
Op = Callable[[random.Random, Spec, str], str]


def _x(
    rng: random.Random,
    s: Spec,
    dtype: str,
    rank: int | None = None,
    name: str = "x",
    positive: bool = False,
    shape: list[int] | None = None,
) -> str:
    if shape is None:
        rank = rank or rng.choice((1, 2, 3))
        shape = [rng.choice((1, 2, 3, 5, 8)) for _ in range(rank)]
    return s.add_input(
        name, tensor(rng, shape, dtype, pick_layout(rng, len(shape)), positive=positive)
    )


def _unary(fn: str, kwargs: Callable[[random.Random], dict[str, object]] | None = None) -> Op:
    def op(rng: random.Random, s: Spec, dtype: str) -> str:
        x = _x(rng, s, dtype)
        kw = kwargs(rng) if kwargs else {}
        args = "".join(f", {k}={fmt(v)}" for k, v in kw.items() if rng.random() < 0.8)
        return f"{fn}({x}{args})"

    return op


def _loss(fn: str, extra: Callable[[random.Random], dict[str, object]] | None = None) -> Op:
    def op(rng: random.Random, s: Spec, dtype: str) -> str:
        shape = [rng.choice((1, 3, 4, 8)) for _ in range(rng.choice((1, 2, 3)))]
        a = _x(rng, s, dtype, shape=shape, name="a")
        b = _x(rng, s, dtype, shape=shape if rng.random() < 0.8 else shape[1:] or shape, name="b")
        kw = dict(extra(rng)) if extra else {}
        kw["reduction"] = rng.choice(("mean", "sum", "none"))
        return f"{fn}({a}, {b}{''.join(f', {k}={fmt(v)}' for k, v in kw.items())})"

    return op


def _lerp(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((1, 3, 4, 7)) for _ in range(rng.choice((1, 2, 3)))]
    a, b = _x(rng, s, dtype, shape=shape, name="a"), _x(rng, s, dtype, shape=shape, name="b")
    if rng.random() < 0.5:
        return f"torch.lerp({a}, {b}, {fmt(rng.choice((0.3, 0.5, 0.75, 1.5, -0.25)))})"
    w = _x(rng, s, dtype, shape=[1] * (len(shape) - 1) + [shape[-1]], name="w")
    return f"torch.lerp({a}, {b}, {w})"


def _addmv(rng: random.Random, s: Spec, dtype: str) -> str:
    n, m = rng.choice((1, 3, 5, 8)), rng.choice((1, 2, 4, 7))
    v = _x(rng, s, dtype, shape=rng.choice(([n], [1])), name="v")
    mat = _x(rng, s, dtype, shape=[n, m], name="mat")
    vec = _x(rng, s, dtype, shape=[m], name="vec")
    return f"torch.addmv({v}, {mat}, {vec}, beta={rng.choice((1, 0.5, 0, -1))}, alpha={rng.choice((1, 2, 0.5))})"


def _addr(rng: random.Random, s: Spec, dtype: str) -> str:
    n, m = rng.choice((1, 3, 5)), rng.choice((1, 2, 4))
    inp = _x(rng, s, dtype, shape=rng.choice(([n, m], [m], [1, m])), name="inp")
    v1, v2 = _x(rng, s, dtype, shape=[n], name="v1"), _x(rng, s, dtype, shape=[m], name="v2")
    return f"torch.addr({inp}, {v1}, {v2}, beta={rng.choice((1, 2, 0))}, alpha={rng.choice((1, -1, 0.5))})"


def _layer_norm(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((1, 2, 3)), rng.choice((3, 4, 7)), rng.choice((5, 8, 16))]
    x = _x(rng, s, dtype, shape=shape)
    k = rng.choice((1, 2))
    norm = shape[-k:]
    args = [x, fmt(tuple(norm))]
    if rng.random() < 0.7:
        args += [_x(rng, s, dtype, shape=norm, name="w"), _x(rng, s, dtype, shape=norm, name="b")]
    return f"F.layer_norm({', '.join(args)}, eps={rng.choice((1e-5, 1e-3, 0.1))})"


def _group_norm(rng: random.Random, s: Spec, dtype: str) -> str:
    groups = rng.choice((1, 2, 3))
    c = groups * rng.choice((1, 2, 4))
    x = _x(
        rng, s, dtype, shape=[rng.choice((1, 2, 3)), c, rng.choice((1, 4, 5)), rng.choice((3, 6))]
    )
    affine = ""
    if rng.random() < 0.6:
        affine = (
            f", {_x(rng, s, dtype, shape=[c], name='w')}, {_x(rng, s, dtype, shape=[c], name='b')}"
        )
    return f"F.group_norm({x}, {groups}{affine}, eps={rng.choice((1e-5, 0.01))})"


def _nan_to_num(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((3, 4, 8)) for _ in range(rng.choice((1, 2)))]
    base = tensor(rng, shape, dtype)
    sel = f"torch.randn({tuple(shape)!r}, generator=g)"
    special = rng.choice(('float("nan")', 'float("inf")', 'float("-inf")'))
    s.add_input("x", f"torch.where({sel} > 0.8, {special}, {base})".replace(",)", ")"))
    kw = [
        f"{k}={fmt(v)}"
        for k, v in (("nan", 0.5), ("posinf", 100.0), ("neginf", -7.0))
        if rng.random() < 0.5
    ]
    return f"torch.nan_to_num(x{''.join(', ' + a for a in kw)})"


def _roll(rng: random.Random, s: Spec, dtype: str) -> str:
    x = _x(rng, s, dtype, rank=rng.choice((1, 2, 3)))
    if rng.random() < 0.3:
        return f"torch.roll({x}, {rng.choice((1, -2, 7))})"
    return f"torch.roll({x}, shifts={rng.choice((1, -1, 3, 9))}, dims={rng.choice((0, -1))})"


def _tri(fn: str) -> Op:
    def op(rng: random.Random, s: Spec, dtype: str) -> str:
        x = _x(
            rng,
            s,
            dtype,
            shape=[rng.choice((1, 2)), rng.choice((1, 3, 5)), rng.choice((2, 4, 6))][
                rng.choice((0, 1)) :
            ],
        )
        return f"torch.{fn}({x}, diagonal={rng.choice((0, 1, -1, 2, -3))})"

    return op


def _moments(fn: str) -> Op:
    def op(rng: random.Random, s: Spec, dtype: str) -> str:
        shape = [rng.choice((3, 4, 7)) for _ in range(rng.choice((1, 2, 3)))]
        x = _x(rng, s, dtype, shape=shape)
        dim = rng.randrange(len(shape))
        corr = rng.choice((0, 1, 2))
        return f"torch.{fn}({x}, dim={dim}, correction={corr}, keepdim={rng.choice((True, False))})"

    return op


def _logsumexp(rng: random.Random, s: Spec, dtype: str) -> str:
    x = _x(rng, s, dtype, rank=rng.choice((1, 2, 3)))
    return f"torch.logsumexp({x}, dim={rng.choice((0, -1))}, keepdim={rng.choice((True, False))})"


def _rsub(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((1, 3, 4)) for _ in range(2)]
    a, b = _x(rng, s, dtype, shape=shape, name="a"), _x(rng, s, dtype, shape=shape[1:], name="b")
    return f"torch.rsub({a}, {b}, alpha={rng.choice((1, 2, -0.5))})"


def _interp(rng: random.Random, s: Spec, dtype: str) -> str:
    x = _x(
        rng,
        s,
        dtype,
        shape=[
            rng.choice((1, 2)),
            rng.choice((1, 3)),
            rng.choice((3, 4, 5)),
            rng.choice((4, 6, 7)),
        ],
    )
    ac = rng.choice((True, False))
    if rng.random() < 0.5:
        return f'F.interpolate({x}, size=({rng.choice((2, 5, 8))}, {rng.choice((3, 9))}), mode="bilinear", align_corners={ac})'
    sf = rng.choice((2.0, 0.5, 1.5, 3.0))
    rec = ", recompute_scale_factor=True" if rng.random() < 0.3 else ""
    return f'F.interpolate({x}, scale_factor={sf}, mode="bilinear", align_corners={ac}{rec})'


def _unfold(rng: random.Random, s: Spec, dtype: str) -> str:
    x = _x(
        rng,
        s,
        dtype,
        shape=[rng.choice((1, 2)), rng.choice((1, 3)), rng.choice((5, 6, 8)), rng.choice((5, 7))],
    )
    k, d, p, st = rng.choice((1, 2, 3)), rng.choice((1, 2)), rng.choice((0, 1)), rng.choice((1, 2))
    return f"F.unfold({x}, kernel_size={k}, dilation={d}, padding={p}, stride={st})"


def _pixel(fn: str) -> Op:
    def op(rng: random.Random, s: Spec, dtype: str) -> str:
        r = rng.choice((2, 3))
        if fn == "pixel_shuffle":
            shape = [
                rng.choice((1, 2)),
                r * r * rng.choice((1, 2)),
                rng.choice((2, 3)),
                rng.choice((1, 4)),
            ]
        else:
            shape = [
                rng.choice((1, 2)),
                rng.choice((1, 3)),
                r * rng.choice((1, 2)),
                r * rng.choice((1, 3)),
            ]
        return f"F.{fn}({_x(rng, s, dtype, shape=shape)}, {r})"

    return op


def _bce(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((2, 3, 5)) for _ in range(rng.choice((1, 2)))]
    p = s.add_input("p", f"torch.sigmoid({tensor(rng, shape, dtype)})")
    t = s.add_input(
        "t", f"torch.rand({tuple(shape)!r}, generator=g, dtype=torch.{dtype})".replace(",)", ")")
    )
    w = (
        f", weight={_x(rng, s, dtype, shape=shape[-1:], name='w', positive=True)}"
        if rng.random() < 0.3
        else ""
    )
    return f"F.binary_cross_entropy({p}, {t}{w}, reduction={rng.choice(('mean', 'sum', 'none'))!r})"


def _cos(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((1, 3, 4)), rng.choice((2, 5, 8))]
    a, b = _x(rng, s, dtype, shape=shape, name="a"), _x(rng, s, dtype, shape=shape[-1:], name="b")
    return (
        f"F.cosine_similarity({a}, {b}, dim={rng.choice((-1, 1))}, eps={rng.choice((1e-8, 1e-3))})"
    )


def _vnorm(rng: random.Random, s: Spec, dtype: str) -> str:
    rank = rng.choice((1, 2, 3))
    x = _x(rng, s, dtype, rank=rank)
    o = rng.choice(("2", "1", "3", 'float("inf")', 'float("-inf")', "0.5"))
    dim = rng.choice(("None", "0", "-1", "(0, -1)") if rank > 1 else ("None", "0", "-1"))
    return f"torch.linalg.vector_norm({x}, ord={o}, dim={dim}, keepdim={rng.choice((True, False))})"


def _xlogy(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((2, 3, 5)) for _ in range(2)]
    base = tensor(rng, shape, dtype)
    sel = f"torch.randn({tuple(shape)!r}, generator=g)"
    x = s.add_input("x", f"torch.where({sel} > 0.5, 0.0, {base})")
    y = _x(rng, s, dtype, shape=shape[1:], name="y", positive=True)
    return f"torch.xlogy({x}, {y})"


def _binary(fn: str, positive: bool = False) -> Op:
    def op(rng: random.Random, s: Spec, dtype: str) -> str:
        shape = [rng.choice((1, 3, 4)) for _ in range(rng.choice((1, 2)))]
        a = _x(rng, s, dtype, shape=shape, name="a", positive=positive)
        b = _x(rng, s, dtype, shape=shape[-1:], name="b")
        return f"torch.{fn}({a}, {b})"

    return op


def _renorm(rng: random.Random, s: Spec, dtype: str) -> str:
    x = _x(rng, s, dtype, shape=[rng.choice((2, 3)), rng.choice((3, 4)), rng.choice((1, 5))])
    return f"torch.renorm({x}, p={rng.choice((1, 2, 3))}, dim={rng.choice((0, 1, -1))}, maxnorm={rng.choice((0.5, 1.0, 5.0))})"


def _sinc(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((3, 5, 8))]
    sel = f"torch.randn({shape[0]}, generator=g)"
    s.add_input("x", f"torch.where({sel} > 0.7, 0.0, {tensor(rng, shape, dtype)})")
    return "torch.sinc(x)"


def _heaviside(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((3, 5, 8))]
    sel = f"torch.randn({shape[0]}, generator=g)"
    s.add_input("x", f"torch.where({sel} > 0.5, 0.0, {tensor(rng, shape, dtype)})")
    v = _x(rng, s, dtype, shape=rng.choice(([1], shape)), name="v")
    return f"torch.heaviside(x, {v})"


def _float_power(rng: random.Random, s: Spec, dtype: str) -> str:
    x = _x(rng, s, dtype, rank=2, positive=True)
    return f"torch.float_power({x}, {fmt(rng.choice((2, 0.5, -1.5, 3.0, 1)))})"


def _kl_div(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((2, 3)), rng.choice((4, 5))]
    inp = s.add_input("inp", f"F.log_softmax({tensor(rng, shape, dtype)}, dim=-1)")
    lt = rng.choice((True, False))
    tgt = s.add_input(
        "tgt", f"F.{'log_softmax' if lt else 'softmax'}({tensor(rng, shape, dtype)}, dim=-1)"
    )
    red = rng.choice(("batchmean", "sum", "mean", "none"))
    return f"F.kl_div({inp}, {tgt}, reduction={red!r}, log_target={lt})"


def _prelu(rng: random.Random, s: Spec, dtype: str) -> str:
    c = rng.choice((1, 3, 4))
    x = _x(rng, s, dtype, shape=[rng.choice((1, 2)), c, rng.choice((1, 5))])
    w = _x(rng, s, dtype, shape=rng.choice(([c], [1])), name="w")
    return f"F.prelu({x}, {w})"


def _diag_embed(rng: random.Random, s: Spec, dtype: str) -> str:
    x = _x(rng, s, dtype, rank=rng.choice((1, 2)))
    return f"torch.diag_embed({x}, offset={rng.choice((0, 1, -2))}, dim1={rng.choice((0, -2))}, dim2=-1)"


def _trace(rng: random.Random, s: Spec, dtype: str) -> str:
    return f"torch.trace({_x(rng, s, dtype, shape=[rng.choice((1, 3, 4)), rng.choice((2, 3, 6))])})"


def _logit(rng: random.Random, s: Spec, dtype: str) -> str:
    shape = [rng.choice((2, 3, 5)) for _ in range(2)]
    p = s.add_input("p", f"torch.sigmoid({tensor(rng, shape, dtype)})")
    eps = rng.choice(("", ", eps=1e-06", ", eps=0.1", ", eps=0.3"))
    return f"torch.logit({p}{eps})"


_SLOPES = (0.01, 0.2, -0.1, 1.5)
#: op -> (renderer, dtypes it is drawn with)
OPS: dict[str, tuple[Op, tuple[str, ...]]] = {
    "lerp": (_lerp, LOWP),
    "hardswish": (_unary("F.hardswish"), LOWP),
    "hardsigmoid": (_unary("F.hardsigmoid"), LOWP),
    "silu": (_unary("F.silu"), LOWP),
    "mish": (_unary("F.mish"), LOWP),
    "elu": (_unary("F.elu", lambda r: {"alpha": r.choice((1.0, 0.5, 2.0))}), LOWP),
    "celu": (_unary("F.celu", lambda r: {"alpha": r.choice((1.0, 0.5, 3.0))}), LOWP),
    "selu": (_unary("F.selu"), LOWP),
    "softplus": (
        _unary(
            "F.softplus",
            lambda r: {"beta": r.choice((1.0, 2.0, 0.5)), "threshold": r.choice((20.0, 1.0, 5.0))},
        ),
        LOWP,
    ),
    "leaky_relu": (_unary("F.leaky_relu", lambda r: {"negative_slope": r.choice(_SLOPES)}), LOWP),
    "hardtanh": (
        _unary(
            "F.hardtanh",
            lambda r: dict(
                zip(
                    ("min_val", "max_val"),
                    r.choice(((-1.0, 1.0), (-0.5, 2.0), (0.0, 6.0), (-2.0, -1.0))),
                )
            ),
        ),
        LOWP,
    ),
    "logit": (_logit, FULL),
    "softshrink": (_unary("F.softshrink", lambda r: {"lambd": r.choice((0.5, 0.0, 1.5))}), LOWP),
    "hardshrink": (_unary("F.hardshrink", lambda r: {"lambd": r.choice((0.5, 0.0, 1.5))}), LOWP),
    "threshold": (
        _unary(
            "F.threshold",
            lambda r: {"threshold": r.choice((0.1, -0.5)), "value": r.choice((0.0, 20.0, -1.0))},
        ),
        LOWP,
    ),
    "mse_loss": (_loss("F.mse_loss"), FULL),
    "l1_loss": (_loss("F.l1_loss"), FULL),
    "smooth_l1_loss": (
        _loss("F.smooth_l1_loss", lambda r: {"beta": r.choice((1.0, 0.5, 0.0, 2.0))}),
        FULL,
    ),
    "huber_loss": (_loss("F.huber_loss", lambda r: {"delta": r.choice((1.0, 0.5, 3.0))}), FULL),
    "addmv": (_addmv, FULL),
    "addr": (_addr, FULL),
    "native_layer_norm": (_layer_norm, LOWP),
    "native_group_norm": (_group_norm, FULL),
    "nan_to_num": (_nan_to_num, LOWP),
    "roll": (_roll, LOWP),
    "tril": (_tri("tril"), LOWP),
    "triu": (_tri("triu"), LOWP),
    "var_mean": (_moments("var_mean"), FULL),
    "std_mean": (_moments("std_mean"), FULL),
    "logsumexp": (_logsumexp, LOWP),
    "rsub": (_rsub, LOWP),
    "upsample_bilinear2d": (_interp, FULL),
    "im2col": (_unfold, FULL),
    "pixel_shuffle": (_pixel("pixel_shuffle"), LOWP),
    "pixel_unshuffle": (_pixel("pixel_unshuffle"), LOWP),
    "binary_cross_entropy": (_bce, FULL),
    "cosine_similarity": (_cos, FULL),
    "linalg_vector_norm": (_vnorm, FULL),
    "xlogy": (_xlogy, FULL),
    "logaddexp": (_binary("logaddexp"), LOWP),
    "renorm": (_renorm, FULL),
    "sinc": (_sinc, FULL),
    "heaviside": (_heaviside, FULL),
    "float_power": (_float_power, FULL),
    "kl_div": (_kl_div, FULL),
    "prelu": (_prelu, LOWP),
    "diag_embed": (_diag_embed, LOWP),
    "trace": (_trace, FULL),
}


def decomp_op(rng: random.Random, target: str) -> Spec:
    op = target.removeprefix("decomp.")
    render, dtypes = OPS[op]
    dtype = pick_float(rng, dtypes)
    s = Spec()
    expr = render(rng, s, dtype)
    if rng.random() < 0.4 and op not in ("var_mean", "std_mean"):
        s.body.append(f"h = {expr}")
        s.ret = rng.choice(("h * 2", "h + 1", "torch.relu(h)"))
    else:
        s.ret = expr
    s.note(op=op, dtype=dtype)
    return s


TEMPLATES_DECOMP: tuple[Template, ...] = (
    Template("decomp_op", tuple(f"decomp.{op}" for op in OPS), decomp_op),
)
