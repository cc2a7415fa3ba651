"""``rewrites`` templates for the joint-graph and post-grad peepholes: views and permutes that
cancel, dtype-conversion chains, scaled softmax, one-hot scatter on a constant, uniform-value
folding, no-op removal, cumsum of a constant, cat/split round trips, the Gumbel-max sampling
rewrite (matrix products are in ``templates_mm``).

Each ``render(rng, target)`` returns a :class:`~torchsmith.generate.rewrites.base.Spec`; it
varies dtypes, sizes (1 and odd sizes included), layouts, broadcasting and keyword arguments,
and sometimes writes a near miss the pattern's check must reject (noted ``near_miss``).
"""

from __future__ import annotations

import random

from torchsmith.generate.rewrites.base import (
    Render,
    Spec,
    Template,
    fmt,
    permutation,
    pick_float,
    pick_layout,
    shape_lit,
    sizes,
    tensor,
)

FLOATS = ("float32", "float64", "float16", "bfloat16")


def _tail(rng: random.Random, name: str, dtype: str) -> str:
    """A follow-up on ``name`` so the rewrite's result feeds a fused kernel."""
    if dtype.startswith(("int", "uint")):
        return rng.choice((f"{name} + 1", f"{name} * 2", f"torch.abs({name})"))
    return rng.choice((f"{name} + 1", f"torch.relu({name})", f"{name} * 0.5", f"{name}.sigmoid()"))


def views(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3, 3, 4))
    shape = sizes(rng, rank)
    dtype = rng.choice(("float32", "float32", "int64", "int32", pick_float(rng)))
    pair = target == "pointless_view_pair" or rng.random() < 0.3
    layout = (
        "contiguous"
        if pair
        else pick_layout(rng, rank, ("contiguous", "transposed", "permuted", "expanded", "offset"))
    )
    if pair and rng.random() < 0.3:
        layout = "offset"
    x = s.add_input("x", tensor(rng, shape, dtype, layout))
    same = list(shape)
    if rng.random() < 0.4:
        same[rng.randrange(rank)] = -1
    if pair:
        flat = rng.choice(
            ("(-1,)", f"({shape[0]}, -1)", shape_lit([shape[0] * shape[1], *shape[2:]]))
        )
        back = rng.choice((shape_lit(same), f"{x}.shape", f"{x}.size()"))
        s.body.append(
            f"h = {x}.view{flat}.view({back})"
            if back.startswith(x)
            else f"h = {x}.view{flat}.view{back}"
        )
    else:
        form = rng.choice(("lit", "shape", "reshape"))
        lit = shape_lit(same)
        s.body.append(
            f"h = {x}.view({x}.shape)"
            if form == "shape"
            else f"h = {x}.reshape{lit}"
            if form == "reshape" and layout == "contiguous"
            else f"h = {x}.view{lit}"
        )
    s.ret = _tail(rng, "h", dtype)
    s.note(dtype=dtype, layout=layout, pair=pair)
    return s


def permutes(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3, 4))
    shape = sizes(rng, rank)
    dtype = rng.choice(("float32", "float32", "int64", pick_float(rng)))
    layout = pick_layout(rng, rank)
    x = s.add_input("x", tensor(rng, shape, dtype, layout))
    perm, inv = permutation(rng, rank)
    near_miss = rng.random() < 0.15
    second = perm if near_miss and perm != inv else inv
    if rng.random() < 0.25:
        a, b = rng.sample(range(rank), 2)
        s.body.append(f"h = {x}.transpose({a}, {b}).transpose({b - rank}, {a})")
    else:
        s.body.append(f"h = {x}.permute{fmt(tuple(perm))}.permute{fmt(tuple(second))}")
    if rng.random() < 0.4:
        y = s.add_input("y", tensor(rng, [1] * (rank - 1) + [shape[-1]], dtype))
        s.body.append(f"h = h + {y}" if second == inv else "h = h.contiguous()")
    s.ret = _tail(rng, "h", dtype)
    s.note(dtype=dtype, layout=layout, near_miss=near_miss and second != inv)
    return s


_WIDTH = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


def convert_chain(rng: random.Random, target: str) -> Spec:
    s = Spec()
    shape = sizes(rng, rng.choice((1, 2, 3)))
    src = pick_float(rng)
    while True:
        mid, dst = pick_float(rng), pick_float(rng)
        if _WIDTH[mid] >= _WIDTH[dst] or rng.random() < 0.15:  # (a widening last step: no rewrite)
            break
    x = s.add_input("x", tensor(rng, shape, src, pick_layout(rng, len(shape))))
    style = rng.choice(("to", "to_kw", "method", "type"))
    short = {"float16": "half", "bfloat16": "bfloat16", "float32": "float", "float64": "double"}

    def conv(e: str, d: str) -> str:
        if style == "to_kw":
            return f"{e}.to(dtype=torch.{d})"
        if style == "method":
            return f"{e}.{short[d]}()"
        if style == "type":
            return f"{e}.type(torch.{d})"
        return f"{e}.to(torch.{d})"

    s.body.append(f"h = {conv(x, mid)}")
    s.body.append(f"h = {conv('h', dst)}")
    if rng.random() < 0.4:
        y = s.add_input("y", tensor(rng, shape, dst))
        s.body.append(f"h = h * {y}")
    s.ret = _tail(rng, "h", dst)
    s.note(chain=f"{src}->{mid}->{dst}", style=style)
    return s


def scaled_softmax(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3, 4))
    shape = sizes(rng, rank, 1, 9)
    dtype = pick_float(rng)
    dim = rng.randrange(-rank, rank)
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    c = rng.choice((0.125, 0.5, 2.0, 3.0, 1.7, -0.5, -2.0, 8.0))
    op = "/" if target == "div_softmax_pattern" else "*"
    if rng.random() < 0.3:  # a tensor scale, constant along the softmax dim (or not: near miss)
        oshape = list(shape)
        constant_along = rng.random() < 0.8
        oshape[dim] = 1 if constant_along else shape[dim]
        other = s.add_input("t", tensor(rng, oshape, dtype, positive=op == "/"))
        s.note(tensor_scale=True, near_miss=not constant_along)
    else:
        other = fmt(c)
    scaled = f"{other} * {x}" if op == "*" and rng.random() < 0.3 else f"{x} {op} {other}"
    kind = rng.choice(("softmax", "softmax", "log_softmax", "manual", "method"))
    kw = ""
    if dtype in ("float16", "bfloat16") and rng.random() < 0.5:
        kw = ", dtype=torch.float32"
    if kind == "softmax":
        s.ret = f"torch.softmax({scaled}, dim={dim}{kw})"
    elif kind == "log_softmax":
        s.ret = f"F.log_softmax({scaled}, dim={dim}{kw})"
    elif kind == "method":
        s.ret = f"({scaled}).softmax({dim}{kw})"
    else:
        keep = rng.random() < 0.8
        s.body += [f"h = {scaled}", f"m = h.amax(dim={dim}, keepdim={keep})"]
        s.body.append("e = (h - m).exp()" if keep else f"e = (h - m.unsqueeze({dim})).exp()")
        s.ret = f"e / e.sum(dim={dim}, keepdim=True)"
    s.note(dtype=dtype, op=op, kind=kind, dim=dim, dtype_kw=bool(kw))
    return s


def one_hot(rng: random.Random, target: str) -> Spec:
    s = Spec()
    n, c = rng.choice((1, 3, 4, 8, 9)), rng.choice((2, 5, 8, 10, 16))
    dtype = rng.choice(("float32", "float32", "int64", "float16", "bfloat16", "float64", "int32"))
    dim = rng.choice((0, 1, 1, -1))
    three = rng.random() < 0.25
    full = [c, n] if dim == 0 else [n, c]
    if three:
        full = [2, n, c] if dim != 0 else [c, 2, n]
    d = dim if not three or dim != 1 else 2
    sel = list(full)
    sel[d] = 1
    idx = s.add_input("idx", f"torch.randint(0, {full[d]}, {shape_lit(sel)}, generator=g)")
    bg = rng.choice(("zeros", "full", "ones"))
    val = (
        rng.choice((1, 1.0, 2.5, -1, 7)) if not dtype.startswith("int") else rng.choice((1, 3, -2))
    )
    if bg == "zeros":
        base = f"torch.zeros({shape_lit(full)}, dtype=torch.{dtype})"
    elif bg == "ones":
        base = f"torch.ones({shape_lit(full)}, dtype=torch.{dtype})"
    else:
        fill = rng.choice((0.5, -1.0, 2.0)) if not dtype.startswith("int") else rng.choice((5, -1))
        base = f"torch.full({shape_lit(full)}, {fill}, dtype=torch.{dtype})"
    s.body.append(f"h = {base}.scatter({d}, {idx}, {fmt(val)})")
    if rng.random() < 0.5:
        w = s.add_input("w", tensor(rng, full, dtype))
        s.body.append(f"h = h * {w}")
    s.ret = _tail(rng, "h", dtype)
    s.note(dtype=dtype, dim=d, background=bg, value=val)
    return s


def uniform_fold(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((1, 2, 3))
    shape = sizes(rng, rank)
    dtype = rng.choice(("float32", "float32", "int64", "int32", pick_float(rng)))
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    cdtype = rng.choice((dtype, dtype, "float32", "float64", "int64"))
    lit = shape_lit(shape)
    ops = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(("mul1", "div1", "add0", "sub0", "rmul1"))
        if kind in ("mul1", "div1", "rmul1"):
            const = rng.choice(
                (
                    f"torch.ones({lit}, dtype=torch.{cdtype})",
                    f"torch.full({lit}, 1, dtype=torch.{cdtype})",
                    "torch.ones_like(h)",
                )
            )
        else:
            const = rng.choice(
                (
                    f"torch.zeros({lit}, dtype=torch.{cdtype})",
                    f"torch.full({lit}, 0, dtype=torch.{cdtype})",
                    "torch.zeros_like(h)",
                )
            )
        if kind == "div1" and (dtype.startswith("int") and cdtype.startswith("int")):
            kind = "mul1"
        sym = {"mul1": "*", "div1": "/", "add0": "+", "sub0": "-"}.get(kind, "*")
        ops.append(f"h = {const} * h" if kind == "rmul1" else f"h = h {sym} {const}")
    s.body.append(f"h = {x}")
    s.body += ops
    s.ret = rng.choice(
        ("torch.abs(h)", "torch.neg(h)", "h.relu()" if not dtype.startswith("int") else "h.abs()")
    )
    s.note(dtype=dtype, const_dtype=cdtype, ops=len(ops))
    return s


_NOOPS_F = ("slice", "repeat", "pad", "cat", "pow", "clone", "view_dtype")
_NOOPS_I = ("slice", "repeat", "pad", "cat", "pow", "clone", "floor", "ceil", "round", "trunc")


def noop_ops(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((1, 2, 3))
    shape = sizes(rng, rank)
    dtype = rng.choice(("float32", "float32", "int64", "int32", pick_float(rng)))
    is_int = dtype.startswith("int")
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    s.body.append(f"h = {x}")
    absent: list[str] = []
    chosen = rng.sample(_NOOPS_I if is_int else _NOOPS_F, rng.randint(1, 3))
    for kind in chosen:
        d = rng.randrange(rank)
        if kind == "slice":
            idx = [":"] * rank
            idx[d] = rng.choice(("0:", f":{shape[d]}", f"0:{shape[d]}", "::1", f"-{shape[d]}:"))
            s.body.append(f"h = h[{', '.join(idx)}]")
            absent.append("lowering:aten.slice.Tensor")
        elif kind == "repeat":
            s.body.append(f"h = h.repeat{fmt(tuple([1] * rank))}")
            absent.append("lowering:aten.repeat.default")
        elif kind == "pad":
            pads = (0, 0) * rng.randint(1, rank)
            val = (
                f", value={rng.choice((0.0, 1.5, -2.0)) if not is_int else 3}"
                if rng.random() < 0.4
                else ""
            )
            s.body.append(f"h = F.pad(h, {fmt(pads)}{val})")
            absent.append("lowering:aten.constant_pad_nd.default")
        elif kind == "cat":
            s.body.append(f"h = torch.cat([h], dim={d - rank if rng.random() < 0.5 else d})")
            absent.append("lowering:aten.cat.default")
        elif kind == "pow":
            s.body.append(rng.choice(("h = h.pow(1)", "h = h ** 1", "h = torch.pow(h, 1)")))
            absent.append("lowering:aten.pow.Tensor_Scalar")
        elif kind == "clone":
            s.body.append(rng.choice(("h = h.clone()", "h = torch.clone(h)")))
            absent.append("lowering:aten.clone.default")
        elif kind == "view_dtype":
            s.body.append(f"h = h.view(torch.{dtype})")
            absent.append("lowering:aten.view.dtype")
        else:  # floor/ceil/round/trunc of an integer tensor: a copy
            s.body.append(f"h = torch.{kind}(h)")
            absent.append(f"lowering:aten.{kind}.default")
    s.ret = _tail(rng, "h", dtype)
    s.absent = tuple(dict.fromkeys(absent))
    s.note(dtype=dtype, noops="+".join(chosen))
    return s


def full_cumsum(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((1, 2, 3))
    shape = sizes(rng, rank, 1, 9)
    dtype = rng.choice(
        ("float32", "float32", "int64", "int32", "bool", "float64", "float16", "bfloat16")
    )
    dim = rng.randrange(-rank, rank)
    lit = shape_lit(shape)
    is_int = dtype.startswith("int") or dtype == "bool"
    v = rng.choice((1, 2, -3, 0)) if is_int else rng.choice((1.0, 0.5, -2.0, 3.0, 0.0))
    if dtype == "bool":
        v = rng.choice((True, False))
    form = rng.choice(("full", "ones", "full", "zeros"))
    if form == "ones":
        base = f"torch.ones({lit}, dtype=torch.{dtype})"
    elif form == "zeros":
        base = f"torch.zeros({lit}, dtype=torch.{dtype})"
    else:
        base = f"torch.full({lit}, {fmt(v)}, dtype=torch.{dtype})"
    kw = ""
    if rng.random() < 0.2:
        kw = f", dtype=torch.{rng.choice(('float64', 'float32', 'int64'))}"
    s.body.append(
        f"c = {base}.cumsum({dim}{kw})"
        if rng.random() < 0.5
        else f"c = torch.cumsum({base}, dim={dim}{kw})"
    )
    xdtype = "float32" if is_int or dtype == "bool" else dtype
    x = s.add_input("x", tensor(rng, shape, xdtype, pick_layout(rng, rank)))
    s.ret = rng.choice((f"c + {x}", f"{x} * c", f"(c, {x}.sum({dim}))"))
    s.note(dtype=dtype, dim=dim, form=form, dtype_kw=bool(kw))
    return s


def _cat_dtype(rng: random.Random) -> str:
    return rng.choice(("float32", "float32", "int64", "float16", "bfloat16", "float64", "bool"))


def cat_slice_cat(rng: random.Random, target: str) -> Spec:
    s = Spec()
    m = rng.choice((1, 3, 4, 8))
    widths = [rng.choice((1, 3, 4, 5, 8)) for _ in range(rng.choice((2, 2, 3)))]
    dtype = _cat_dtype(rng)
    extra = [rng.choice((2, 3))] if rng.random() < 0.3 else []
    names = [
        s.add_input(f"a{i}", tensor(rng, [m, w, *extra], dtype, pick_layout(rng, 2 + len(extra))))
        for i, w in enumerate(widths)
    ]
    total = sum(widths)
    k = rng.choice([widths[0], max(1, widths[0] - 1), min(total, widths[0] + 2), total])
    s.body.append(f"c = torch.cat([{', '.join(names)}], 1)")
    s.body.append(rng.choice((f"t = c[:, :{k}]", f"t = c.narrow(1, 0, {k})", f"t = c[:, 0:{k}]")))
    s.ret = "torch.cat([c, t], 1)" if rng.random() < 0.8 else "torch.cat([c, t], dim=1) * 2"
    if dtype == "bool":
        s.ret = "torch.cat([c, t], 1)"
    s.note(dtype=dtype, widths=widths, k=k, fallback=k > widths[0])
    return s


def split_cat_identity(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3))
    shape = sizes(rng, rank, 2, 8)
    dim = rng.randrange(rank)
    shape[dim] = rng.choice((5, 6, 8, 9))
    dtype = _cat_dtype(rng)
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    cut = sorted(rng.sample(range(1, shape[dim]), rng.choice((1, 2))))
    split_sizes = [b - a for a, b in zip([0, *cut], [*cut, shape[dim]])]
    h = "x" if dtype == "bool" or rng.random() < 0.3 else "h"
    if h == "h":
        s.body.append(f"h = {x} * 2")
    form = rng.choice(("split", "method", "sections"))
    call = (
        f"torch.split({h}, {split_sizes}, dim={dim})"
        if form == "split"
        else f"{h}.split_with_sizes({split_sizes}, {dim})"
        if form == "method"
        else f"torch.split({h}, {split_sizes}, {dim - rank})"
    )
    parts = [f"p{i}" for i in range(len(split_sizes))]
    s.body.append(
        f"{', '.join(parts)}, = {call}" if len(parts) == 1 else f"{', '.join(parts)} = {call}"
    )
    near = rng.random() < 0.15
    order = list(reversed(parts)) if near else parts
    cdim = dim if rng.random() < 0.5 else dim - rank
    s.ret = f"torch.cat([{', '.join(order)}], {cdim})"
    if dtype != "bool":
        s.ret += rng.choice(("", " + 1", " * 3"))
    s.note(dtype=dtype, split_sizes=split_sizes, dim=dim, near_miss=near)
    return s


def cat_split_identity(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3))
    base = sizes(rng, rank, 1, 6)
    dim = rng.randrange(rank)
    dtype = _cat_dtype(rng)
    widths = [rng.choice((1, 2, 3, 5)) for _ in range(rng.choice((2, 3)))]
    names = []
    for i, w in enumerate(widths):
        shape = list(base)
        shape[dim] = w
        names.append(s.add_input(f"a{i}", tensor(rng, shape, dtype, pick_layout(rng, rank))))
    near = rng.random() < 0.15 and widths[0] != widths[1]
    split_sizes = list(widths)
    if near:
        split_sizes[0], split_sizes[1] = split_sizes[1], split_sizes[0]
    s.body.append(f"c = torch.cat([{', '.join(names)}], {dim})")
    outs = [f"p{i}" for i in range(len(split_sizes))]
    s.body.append(f"{', '.join(outs)} = torch.split(c, {split_sizes}, {dim})")
    if dtype == "bool":
        s.ret = f"({', '.join(outs)})"
    else:
        s.ret = f"({', '.join(f'{o} * {i + 1}' for i, o in enumerate(outs))})"
    s.note(dtype=dtype, widths=widths, dim=dim, near_miss=near)
    return s


def gumbel_sampling(rng: random.Random, target: str) -> Spec:
    """The sampling idiom ``argmax(softmax(logits) / q, dim=-1, keepdim=True)`` with ``q``
    exponential (gpt-fast's ``multinomial_sample_one_no_sync``), which the default-on
    ``apply_gumbel_max_trick`` pass rewrites to ``argmax(logits - log(q))``. Drawn: the rate
    as ``exponential_``'s callers write it (``1.0``, ``1``, the default, ``lambd=1.0``; a rate
    of 2 the pass must leave), a softmax over another dim than the argmax's, a temperature,
    the argmax without ``keepdim`` (``bench/found/gumbel_max_trick_*.py``)."""
    s = Spec()
    rank = rng.choice((1, 2, 2, 3))
    shape = [rng.choice((1, 2, 3, 4)) for _ in range(rank - 1)] + [rng.choice((5, 8, 16, 33))]
    x = s.add_input("logits", tensor(rng, shape, "float32"))
    if rng.random() < 0.4:
        s.body.append(f"{x} = {x} / {fmt(rng.choice((0.7, 1.5, 0.1)))}")
    dim = rng.choice([-1] * 4 + list(range(rank - 1)))
    s.body.append(f"probs = F.softmax({x}, dim={dim})")
    rate = rng.choice(("1.0", "1.0", "1", "", "", "lambd=1.0", "2.0"))
    q = rng.choice((f"torch.empty_like({x})", f"torch.empty({shape_lit(shape)})"))
    s.body.append(f"q = {q}.exponential_({rate})")
    keep = rng.random() < 0.85
    s.ret = f"torch.argmax(probs / q, dim=-1{', keepdim=True' if keep else ''})"
    s.note(softmax_dim=dim, rate=rate or "default", keepdim=keep)
    return s


def _t(name: str, fn: Render, *entries: str) -> Template:
    return Template(name, entries, fn)


TEMPLATES_GRAPH: tuple[Template, ...] = (
    _t("views", views, "pointless_view", "pointless_view_pair"),
    _t("permutes", permutes, "pointless_permute_pair"),
    _t("convert_chain", convert_chain, "pointless_convert"),
    _t("scaled_softmax", scaled_softmax, "mul_softmax_pattern", "div_softmax_pattern"),
    _t("one_hot", one_hot, "scatter_upon_const_tensor"),
    _t("uniform_fold", uniform_fold, "constant_fold_uniform_value"),
    _t("noop_ops", noop_ops, "remove_noop_ops"),
    _t("full_cumsum", full_cumsum, "pointless_cumsum_replacement"),
    _t("cat_slice_cat", cat_slice_cat, "cat_slice_cat"),
    _t("split_cat_identity", split_cat_identity, "splitwithsizes_cat_replace"),
    _t("cat_split_identity", cat_split_identity, "cat_splitwithsizes_replace"),
    _t("gumbel_sampling", gumbel_sampling, "apply_gumbel_max_trick"),
)
