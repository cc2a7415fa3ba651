"""``rewrites`` templates for matrix products and keyword normalization: ``mm`` + bias turned
into ``addmm`` (post-grad), the CPU decompositions of ``mm`` / ``addmm`` / ``bmm`` with a
dimension of 1 (``decomposition.py``, counters ``decompose_mm`` & co.), and numpy-style keywords
(``axis=``, ``keepdims=``, ``x1=``) that ``misc_patterns.py`` normalizes before grad.

Each varies dtypes (int64 for plain matmuls), transposed / expanded / offset operands, bias
shapes that broadcast (or do not: no rewrite), ``beta``/``alpha`` (0 and negative included) and
the call's spelling (``torch.mm``, ``@``, ``torch.matmul``, ``F.linear``); and the default-on
weight-only int8 linear pattern (``_weight_int8pack_mm``) under the scale shapes users write.
"""

from __future__ import annotations

import random

from torchsmith.generate.rewrites.base import Spec, Template, pick_float, pick_layout, sizes, tensor


def _operands(
    rng: random.Random,
    s: Spec,
    shapes: tuple[list[int], list[int]],
    dtype: str,
    moved: tuple[str, str],
) -> tuple[str, str]:
    """Inputs ``a`` and ``b`` of a product: ``a`` contiguous, ``moved[0]`` or offset; ``b``
    contiguous, ``moved[1]`` or expanded (the layouts the decompositions must keep)."""
    rank = len(shapes[0])
    la = pick_layout(rng, rank, ("contiguous", moved[0], "offset"))
    a = s.add_input("a", tensor(rng, shapes[0], dtype, la))
    lb = pick_layout(rng, rank, ("contiguous", moved[1], "expanded"))
    return a, s.add_input("b", tensor(rng, shapes[1], dtype, lb))


def mm_bias(rng: random.Random, target: str) -> Spec:
    s = Spec()
    m, k, n = (rng.choice((1, 2, 3, 5, 8, 16)) for _ in range(3))
    dtype = rng.choice(("float32", "float32", "float64", "bfloat16", "float16", "int64"))
    a = s.add_input(
        "a", tensor(rng, [m, k], dtype, pick_layout(rng, 2, ("contiguous", "transposed", "offset")))
    )
    b = s.add_input(
        "b",
        tensor(rng, [k, n], dtype, pick_layout(rng, 2, ("contiguous", "transposed", "expanded"))),
    )
    bshape = rng.choice(([n], [1, n], [m, n], [m, 1], [], [1]))
    bdtype = dtype if rng.random() < 0.85 else rng.choice(("float32", "float64"))
    bias = s.add_input("bias", tensor(rng, bshape, bdtype))
    mm = rng.choice((f"torch.mm({a}, {b})", f"{a} @ {b}", f"torch.matmul({a}, {b})"))
    s.ret = rng.choice((f"{mm} + {bias}", f"{bias} + {mm}", f"torch.add({mm}, {bias})"))
    if rng.random() < 0.3:
        s.ret = f"torch.relu({s.ret})" if dtype != "int64" else f"({s.ret}) * 2"
    s.note(dtype=dtype, bias_shape=bshape, bias_dtype=bdtype, mkn=(m, k, n))
    return s


def small_mm(rng: random.Random, target: str) -> Spec:
    s = Spec()
    dtype = rng.choice(("float32", "float32", "float64", "float16", "bfloat16", "int64"))
    if rng.random() < 0.5:
        k = rng.choice((1, 2, 3, 7, 16, 33))
        sa, sb = [1, k], [k, 1]
    else:
        m, n = rng.choice(((2, 3), (4, 4), (3, 5), (8, 2), (16, 1), (5, 9)))
        sa, sb = [m, 1], [1, n]
    a, b = _operands(rng, s, (sa, sb), dtype, ("transposed", "transposed"))
    s.ret = rng.choice((f"torch.mm({a}, {b})", f"{a} @ {b}", f"torch.matmul({a}, {b})"))
    if rng.random() < 0.4:
        s.ret = f"({s.ret}) * 2"
    s.note(dtype=dtype, a=sa, b=sb)
    return s


def small_addmm(rng: random.Random, target: str) -> Spec:
    s = Spec()
    dtype = rng.choice(("float32", "float32", "float64", "float16", "bfloat16"))
    k, n = rng.choice((1, 2, 3, 7, 16)), rng.choice((1, 2, 5, 8, 16))
    beta, alpha = rng.choice((1, 0.5, 0, 2, -1)), rng.choice((1, 2, 0.5, -1))
    if rng.random() < 0.35:  # a one-row linear
        x = s.add_input("x", tensor(rng, [1, k], dtype))
        w = s.add_input("w", tensor(rng, [n, k], dtype))
        bias = s.add_input("bias", tensor(rng, [n], dtype))
        s.ret = f"F.linear({x}, {w}, {bias})"
        s.note(form="linear")
    else:
        bias = s.add_input("bias", tensor(rng, rng.choice(([n], [1, n])), dtype))
        a = s.add_input(
            "a", tensor(rng, [1, k], dtype, pick_layout(rng, 2, ("contiguous", "offset")))
        )
        b = s.add_input(
            "b", tensor(rng, [k, n], dtype, pick_layout(rng, 2, ("contiguous", "transposed")))
        )
        kw = []
        if beta != 1 or rng.random() < 0.3:
            kw.append(f"beta={beta}")
        if alpha != 1 or rng.random() < 0.3:
            kw.append(f"alpha={alpha}")
        s.ret = f"torch.addmm({', '.join([bias, a, b, *kw])})"
        s.note(form="addmm", beta=beta, alpha=alpha)
    s.note(dtype=dtype, k=k, n=n)
    return s


def small_bmm(rng: random.Random, target: str) -> Spec:
    s = Spec()
    dtype = rng.choice(("float32", "float32", "float64", "float16", "bfloat16"))
    bsz, k = rng.choice((1, 2, 3, 5)), rng.choice((1, 2, 4, 7, 16))
    outer = rng.random() < 0.3
    sa, sb = (
        ([bsz, rng.choice((2, 3)), 1], [bsz, 1, rng.choice((2, 5))])
        if outer
        else ([bsz, 1, k], [bsz, k, 1])
    )
    a, b = _operands(rng, s, (sa, sb), dtype, ("transposed", "permuted"))
    s.ret = rng.choice((f"torch.bmm({a}, {b})", f"{a} @ {b}", f"torch.matmul({a}, {b})"))
    if rng.random() < 0.4:
        s.ret = f"({s.ret}).sum(-1)"
    s.note(dtype=dtype, a=sa, b=sb, outer=outer)
    return s


def numpy_compat(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3))
    shape = sizes(rng, rank, 1, 6)
    dtype = pick_float(rng)
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    axis = rng.randrange(-rank, rank)
    keep = rng.choice((True, False))
    calls = [
        f"torch.sum({x}, axis={axis}, keepdims={keep})",
        f"torch.mean({x}, axis={axis}, keepdims={keep})",
        f"torch.amax({x}, axis={axis}, keepdims={keep})",
        f"torch.amin({x}, axis={axis})",
        f"torch.cumsum({x}, axis={axis})",
    ]
    if shape[axis] > 1:
        calls.append(f"torch.std({x}, axis={axis}, keepdims={keep})")
    if dtype in ("float32", "float64"):  # (no ties to break)
        calls.append(f"torch.argmax({x}, axis={axis}, keepdims={keep})")
    if rng.random() < 0.4:
        y = s.add_input("y", tensor(rng, shape, dtype))
        calls += [f"torch.maximum(x1={x}, x2={y})", f"torch.add(x1={x}, x2={y})"]
    chosen = rng.sample(calls, rng.randint(1, 3))
    s.ret = chosen[0] if len(chosen) == 1 else f"({', '.join(chosen)})"
    s.note(dtype=dtype, calls=len(chosen))
    return s


def woq_int8(rng: random.Random, target: str) -> Spec:
    """Weight-only int8 linear, as quantization recipes write it: ``F.linear(x,
    w_int8.to(x.dtype)) * scales`` with a bfloat16 ``x`` (2-d or 3-d), which the default-on
    post-grad WOQ pattern turns into ``_weight_int8pack_mm``. Drawn: the scales' shape (per
    output channel, the one the kernel takes; per tensor, 0-d or one element; per row; ``[1,
    N]``) and dtype, a bias after the scaling
    (``bench/found/woq_int8_per_tensor_scale.py``)."""
    s = Spec(module=True)
    m, k, n = rng.choice((2, 4, 8)), rng.choice((8, 16, 32)), rng.choice((4, 8, 16))
    rank = rng.choice((2, 3, 3))
    shape = [2, m, k] if rank == 3 else [m, k]
    s.init += [
        "g = torch.Generator().manual_seed(0)",
        f'self.register_buffer("w", torch.randint(-128, 127, ({n}, {k}), generator=g,'
        " dtype=torch.int8))",
    ]
    kind = rng.choice(("channel", "channel", "tensor0d", "tensor1", "row", "1xN"))
    sshape = {"channel": [n], "tensor0d": [], "tensor1": [1], "row": [m, 1], "1xN": [1, n]}[kind]
    sdtype = rng.choice(("bfloat16", "bfloat16", "float32"))
    s.init.append(
        f'self.register_buffer("scales", (torch.rand({sshape}, generator=g) * 0.05 + 0.01)'
        f".to(torch.{sdtype}))"
    )
    x = s.add_input("x", f"torch.randn({shape}, generator=g).to(torch.bfloat16)")
    s.ret = f"F.linear({x}, self.w.to({x}.dtype)) * self.scales"
    if rng.random() < 0.3:
        s.ret = f"({s.ret}) + 1"
    s.note(scales=kind, scales_dtype=sdtype, rank=rank)
    return s


def int_mm_smooth_quant(rng: random.Random, target: str) -> Spec:
    """An int8 x int8 linear as torchao's dynamic quantization writes it, under freezing:
    ``_int_mm(x, w).to(float) * x_scale * w_scale`` (+ bias), which the SmoothQuant pattern
    turns into a oneDNN qlinear. Drawn: the order of the two scale factors (the pattern tells
    them apart by position), their shapes (per row / per tensor, 0-d or one element; per
    channel / per tensor), ``M == N`` or not, a 3-d input reshaped around the product, a bias
    (``bench/found/int_mm_smooth_quant_*.py``)."""
    s = Spec(module=True)
    m, k, n = rng.choice((16, 32)), rng.choice((32, 64)), rng.choice((16, 32))
    s.init += [
        "g = torch.Generator().manual_seed(0)",
        f'self.register_buffer("w", torch.randint(-128, 127, ({k}, {n}), generator=g,'
        " dtype=torch.int8))",
    ]
    wkind = rng.choice(("channel", "channel", "tensor0d", "tensor1"))
    wshape = {"channel": f"({n},)", "tensor0d": "()", "tensor1": "(1,)"}[wkind]
    s.init.append(
        f'self.register_buffer("w_scale", torch.rand({wshape}, generator=g) * 0.01 + 0.001)'
    )
    three_d = rng.random() < 0.3
    xshape = f"(2, {m // 2}, {k})" if three_d else f"({m}, {k})"
    x = s.add_input("x", f"torch.randint(-128, 127, {xshape}, generator=g, dtype=torch.int8)")
    xkind = rng.choice(("row", "row", "tensor0d", "tensor1"))
    xs_shape = {"row": f"({m}, 1)", "tensor0d": "()", "tensor1": "(1,)"}[xkind]
    xs = s.add_input("x_scale", f"torch.rand({xs_shape}, generator=g) * 0.01 + 0.001")
    flat = f"{x}.reshape(-1, {k})" if three_d else x
    s.body.append(f"y = torch._int_mm({flat}, self.w).to(torch.float32)")
    w_first = rng.random() < 0.4
    s.body.append(f"y = y * self.w_scale * {xs}" if w_first else f"y = y * {xs} * self.w_scale")
    if rng.random() < 0.3:
        s.init.append(f'self.register_buffer("b", torch.rand({n}, generator=g))')
        s.body.append("y = y + self.b")
    s.ret = f"y.reshape(2, {m // 2}, {n})" if three_d else "y"
    s.config["inductor.freezing"] = True
    s.note(w_first=w_first, x_scale=xkind, w_scale=wkind, mn=(m, n), three_d=three_d)
    return s


TEMPLATES_MM: tuple[Template, ...] = (
    Template("int_mm_smooth_quant", ("_int_mm_weight_prepack",), int_mm_smooth_quant),
    Template("woq_int8", ("woq_int8",), woq_int8),
    Template("mm_bias", ("addmm",), mm_bias),
    Template("small_mm", ("decompose_mm",), small_mm),
    Template("small_addmm", ("decompose_addmm",), small_addmm),
    Template("small_bmm", ("decompose_bmm",), small_bmm),
    Template("numpy_compat", ("NumpyCompatNormalization",), numpy_compat),
)
