"""``rewrites`` templates for ``fuse_attention.py``: user-written attention that Inductor's
``_sfdp_pattern_N`` replacements turn into ``scaled_dot_product_attention``.

The patterns, as the installed torch spells them, are ``softmax(q @ k^T / s) @ v`` with the
scale multiplied or divided (or applied to ``q`` first), an additive mask, a ``masked_fill`` of
``(mask == 0)`` with ``-inf``, a causal ``torch.where`` with ``finfo.min``, dropout (``p=0`` or a
``Model`` in eval mode, so no randomness), ``[B, S, H, D]`` inputs permuted to heads, softmax in
float32 for half inputs, and a ``bmm``/``view`` form. Each template varies batch 1 (the ``bs1``
patterns), head counts, odd sequence and head sizes, key length != query length, the scale's
spelling (``math.sqrt(d)``, an int, a float), mask shapes and dtypes, strided inputs, half and
bfloat16, a ``Model`` with projections, and the training graph (``check_options = {"grad":
True}``) that the ``_training`` patterns match.
"""

from __future__ import annotations

import random

from torchsmith.generate.rewrites.base import Spec, Template, fmt, pick_float, pick_layout, tensor

_QKV_LAYOUTS = ("contiguous", "permuted", "transposed", "offset")


def _sizes(rng: random.Random) -> tuple[int, int, int, int, int]:
    """(batch, heads, query length, key length, head size)."""
    b = rng.choice((1, 1, 2, 3))
    h = rng.choice((1, 2, 4))
    sq = rng.choice((1, 4, 5, 8, 9, 7, 16))
    sk = sq if rng.random() < 0.7 else rng.choice((3, 8, 11))
    d = rng.choice((4, 8, 15, 16, 32))
    return b, h, sq, sk, d


def _scale(rng: random.Random, s: Spec, d: int, inverse: bool) -> str:
    """A constant scale: ``math.sqrt(d)``-style for a divisor, else a float or int factor."""
    if inverse:
        choice = rng.choice(("sqrt", "float", "int"))
        if choice == "sqrt":
            s.imports.add("math")
            return f"math.sqrt({d})"
        return fmt(round(d**0.5, 4)) if choice == "float" else str(rng.choice((2, 4, 8)))
    return rng.choice((fmt(round(d**-0.5, 6)), "0.125", "0.5", "2.0"))


def _qkv(rng: random.Random, s: Spec, qshape: list[int], kshape: list[int], dtype: str) -> None:
    for name, shape in (("q", qshape), ("k", kshape), ("v", kshape)):
        s.add_input(name, tensor(rng, shape, dtype, pick_layout(rng, len(shape), _QKV_LAYOUTS)))


def _grad(rng: random.Random, s: Spec, dtype: str, p: float = 0.25) -> None:
    if dtype in ("float32", "float64") and rng.random() < p:
        s.check["grad"] = True


def _softmax(rng: random.Random, e: str) -> str:
    return rng.choice(
        (
            f"{e}.softmax(dim=-1)",
            f"torch.softmax({e}, dim=-1)",
            f"F.softmax({e}, dim=-1)",
            f"({e}).softmax(-1)",
        )
    )


def _dropout(rng: random.Random, s: Spec, e: str) -> str:
    """Dropout that is the identity: p=0, training=False, or an eval-mode ``nn.Dropout``."""
    if s.module:
        return f"self.drop({e})"
    return rng.choice(
        (
            f"F.dropout({e}, p=0.0)",
            f"F.dropout({e}, p=0.1, training=False)",
            f"torch.dropout({e}, 0.0, True)",
        )
    )


def sfdp_basic(rng: random.Random, target: str) -> Spec:
    n = int(target.rsplit("_", 1)[1])
    s = Spec(module=n in (3, 4, 13) and rng.random() < 0.4)
    if s.module:
        s.init.append(f"self.drop = nn.Dropout({rng.choice((0.1, 0.0, 0.5))})")
    b, h, sq, sk, d = _sizes(rng)
    dtype = pick_float(rng)
    if n == 13:
        _qkv(rng, s, [b * h, sq, d], [b * h, sk, d], dtype)
        s.body.append(f"w = {_softmax(rng, 'torch.bmm(q, k.transpose(1, 2))')}")
        s.body.append(f"w = {_dropout(rng, s, 'w')}")
        s.ret = "torch.bmm(w, v)"
    else:
        _qkv(rng, s, [b, h, sq, d], [b, h, sk, d], dtype)
        scores = rng.choice(("torch.matmul(q, k.transpose(-2, -1))", "(q @ k.transpose(-2, -1))"))
        sc = _scale(rng, s, d, inverse=n in (1, 3))
        scaled = f"{scores}.div({sc})" if n in (1, 3) else f"{scores}.mul({sc})"
        if rng.random() < 0.3:
            scaled = f"({scores}) {'/' if n in (1, 3) else '*'} {sc}"
        s.body.append(f"w = {_softmax(rng, scaled)}")
        if n in (3, 4):
            s.body.append(f"w = {_dropout(rng, s, 'w')}")
        s.ret = rng.choice(("w.matmul(v)", "w @ v", "torch.matmul(w, v)"))
    _grad(rng, s, dtype)
    s.note(dtype=dtype, bhsqskd=(b, h, sq, sk, d))
    return s


def _additive_mask(
    rng: random.Random, s: Spec, b: int, sq: int, sk: int, dtype: str, promote_ok: bool = False
) -> str:
    """An additive mask: random values, or causal ``-inf`` above the diagonal (no row all -inf).
    A float32 mask on half inputs (``promote_ok``) only where the program casts back."""
    shape = rng.choice(([1, 1, sq, sk], [b, 1, 1, sk], [b, 1, sq, sk], [sq, sk]))
    f32_ok = promote_ok or dtype in ("float32", "float64")
    mdtype = dtype if rng.random() < 0.7 or not f32_ok else "float32"
    causal = shape[-2] == sq and rng.random() < 0.5
    if causal:
        lit = f"({sq}, {sk})"
        expr = (
            f"torch.zeros({lit}, dtype=torch.{mdtype}).masked_fill("
            f'~torch.ones({lit}, dtype=torch.bool).tril(), float("-inf"))'
        )
        if len(shape) == 4:
            expr = f"{expr}.view(1, 1, {sq}, {sk}).expand{tuple(shape)}"
    else:
        expr = tensor(rng, shape, mdtype)
    s.note(mask_shape=shape, mask_dtype=mdtype, causal=causal)
    return s.add_input("mask", expr)


def sfdp_mask(rng: random.Random, target: str) -> Spec:
    n = int(target.rsplit("_", 1)[1])
    s = Spec()
    b, h, sq, sk, d = _sizes(rng)
    dtype = pick_float(rng)
    _qkv(rng, s, [b, h, sq, d], [b, h, sk, d], dtype)
    mask = _additive_mask(rng, s, b, sq, sk, dtype)
    sc = _scale(rng, s, d, inverse=True)
    s.body.append(f"w = torch.softmax(q @ k.transpose(-2, -1) / {sc} + {mask}, dim=-1)")
    if n == 6:
        s.body.append(f"w = {_dropout(rng, s, 'w')}")
    s.ret = "w @ v"
    _grad(rng, s, dtype)
    s.note(dtype=dtype, bhsqskd=(b, h, sq, sk, d))
    return s


def _permuted_inputs(
    rng: random.Random, s: Spec, b: int, h: int, sq: int, sk: int, d: int, dtype: str
) -> None:
    """q/k/v as ``[B, S, H, D]`` (inputs, or a Model's projections of one ``x``), permuted."""
    if s.module:
        e = h * d
        for name in ("q", "k", "v"):
            s.init.append(f"self.{name}_proj = nn.Linear({e}, {e}, bias={rng.random() < 0.7})")
        s.add_input("x", tensor(rng, [b, sq, e], dtype))
        sk = sq
        s.body += [f"{n} = self.{n}_proj(x).view({b}, {sq}, {h}, {d})" for n in ("q", "k", "v")]
    else:
        _qkv(rng, s, [b, sq, h, d], [b, sk, h, d], dtype)
    perm = rng.choice(("(0, 2, 1, 3)", "([0, 2, 1, 3])"))
    s.body += [f"{n} = {n}.permute{perm}" for n in ("q", "k", "v")]


def sfdp_permute(rng: random.Random, target: str) -> Spec:
    n = int(target.rsplit("_", 1)[1])
    s = Spec(module=rng.random() < 0.3)
    b, h, sq, sk, d = _sizes(rng)
    if s.module:
        sk = sq
    half = n in (7, 8, 9, 10)
    dtype = ("float16" if rng.random() < 0.85 else "bfloat16") if half else pick_float(rng)
    if s.module and dtype != "float32":
        s.module = False  # (projections stay float32)
    _permuted_inputs(rng, s, b, h, sq, sk, d, dtype)
    sc = _scale(rng, s, d, inverse=True)
    if half:
        if n in (9, 10):
            s.body += [f"q = q / {sc}", "a = q @ k.transpose(-2, -1)"]
        else:
            s.body.append(f"a = q @ k.transpose(-2, -1) / {sc}")
        s.body += ["a = a.to(torch.float32)", "w = torch.softmax(a, dim=-1)"]
        if n in (7, 9):
            s.body.append(f"w = {_dropout(rng, s, 'w')}")
        s.body += [f"w = w.to(torch.{dtype})", "v = v.to(w.dtype)"]
        s.ret = "w @ v"
    else:
        scores = f"torch.matmul(q, k.transpose(-2, -1)).div({sc})"
        if n == 14:
            mask = _additive_mask(rng, s, b, sq, sk, dtype)
            scores = f"({scores} + {mask})"
        w = _softmax(rng, scores)
        if n == 12:
            if s.module:
                s.init.append(f"self.drop = nn.Dropout({rng.choice((0.1, 0.0))})")
            w = _dropout(rng, s, w)
        s.ret = f"{w}.matmul(v)"
        _grad(rng, s, dtype)
    s.note(dtype=dtype, bhsqskd=(b, h, sq, sk, d), module=s.module)
    return s


def _key_mask(rng: random.Random, s: Spec, b: int, sk: int) -> str:
    """A ``[B, Sk]`` padding mask (0 = masked) keeping key 0 of every row: no all -inf row.
    A share of the int and float masks hold other non-zero values (2, -1; 0.5 for floats): the
    program masks only the zeros (``mask == 0``), so those keys are kept (patterns 15/20 once
    masked them: ``bench/found/sdpa_pattern15_nonbinary_mask.py``)."""
    dtype = rng.choice(("int64", "bool", "float32"))
    nonbinary = dtype != "bool" and rng.random() < 0.3
    if nonbinary:
        values = "[0.0, 1.0, 2.0, 0.5, -1.0]" if dtype == "float32" else "[0, 1, 2, -1]"
        n = values.count(",") + 1
        keep = f"torch.tensor({values})[torch.randint(0, {n}, ({b}, {sk}), generator=g)]"
    else:
        keep = f"torch.randint(0, 2, ({b}, {sk}), generator=g)"
    expr = f"{keep}.index_fill(1, torch.tensor([0]), 1)"
    expr = f"{expr}.bool()" if dtype == "bool" else f"{expr}.to(torch.{dtype})"
    s.note(mask_dtype=dtype, nonbinary=nonbinary)
    return s.add_input("mask", expr)


def sfdp_masked_fill(rng: random.Random, target: str) -> Spec:
    n = int(target.rsplit("_", 1)[1])
    s = Spec()
    b, h, sq, sk, d = _sizes(rng)
    dtype = pick_float(rng)
    _permuted_inputs(rng, s, b, h, sq, sk, d, dtype)
    sc = _scale(rng, s, d, inverse=True)
    if n == 16:
        mask = _additive_mask(rng, s, b, sq, sk, dtype, promote_ok=True)
        inner = f"(torch.matmul(q, k.transpose(-2, -1)).div({sc}) + {mask}).softmax(dim=-1)"
        s.ret = f"{_dropout(rng, s, inner)}.to(dtype=q.dtype).matmul(v)"
    else:
        mask = _key_mask(rng, s, b, sk)
        s.body += ["bs = q.size(0)", "k_len = k.size(-2)"]
        if n == 20:
            s.body += [f"q = q.div({sc})", "scores = q @ k.transpose(-2, -1)"]
        else:
            s.body += ["scores = q @ k.transpose(-2, -1)", f"scores = scores.div({sc})"]
        s.body += [
            'fill_value = torch.full((), -float("inf"), dtype=q.dtype)',
            f"m = ({mask} == 0).view((bs, 1, 1, k_len)).expand_as(scores)",
        ]
        w = "torch.softmax(scores.masked_fill(m, fill_value), dim=-1)"
        s.ret = f"{_dropout(rng, s, w) if n in (17, 20) else w} @ v"
    _grad(rng, s, dtype, 0.2)
    s.note(dtype=dtype, bhsqskd=(b, h, sq, sk, d))
    return s


def sfdp_causal(rng: random.Random, target: str) -> Spec:
    n = int(target.rsplit("_", 1)[1])
    b, h, sq, sk, d = _sizes(rng)
    sk = max(sk, sq)
    s = Spec(module=n == 18 and rng.random() < 0.5)
    dtype = pick_float(rng)
    if n == 18:
        _qkv(rng, s, [b, sq, h, d], [b, sk, h, d], dtype)
        s.body += [f"{x} = {x}.permute([0, 2, 1, 3])" for x in ("q", "k", "v")]
    else:
        _qkv(rng, s, [b, h, sq, d], [b, h, sk, d], dtype)
    tril = f"torch.ones(({sk}, {sk}), dtype=torch.bool).tril()"
    if s.module:  # GPT-2 style: a causal buffer, sliced to the key/query lengths
        s.init.append(f'self.register_buffer("bias", {tril}.view(1, 1, {sk}, {sk}))')
        s.body.append(f"causal = self.bias[:, :, {sk - sq}:{sk}, :{sk}]")
        causal = "causal"
    elif rng.random() < 0.3:
        # left padding: the first query rows of the last sample see no key. The fill is the
        # finite finfo.min, so eager stays finite there (the mean of v): a fully masked row is a
        # valid input of these patterns (bench/found/sdpa_pattern18_finfo_min_padded_row.py)
        pad = rng.randint(1, sq)
        padded = (
            f"(torch.arange({b}).view({b}, 1, 1, 1) == {b - 1})"
            f" & (torch.arange({sq}).view(1, 1, {sq}, 1) < {pad})"
        )
        causal = s.add_input(
            "causal", f"{tril}[{sk - sq}:, :].view(1, 1, {sq}, {sk}) & ~({padded})"
        )
        s.note(padded_rows=pad)
    else:
        causal = s.add_input("causal", f"{tril}[{sk - sq}:, :].view(1, 1, {sq}, {sk})")
    sc = _scale(rng, s, d, inverse=True)
    s.body += [
        "w = torch.matmul(q, k.permute(0, 1, 3, 2))",
        f"inv = torch.full([], {sc}, dtype=w.dtype)",
        "w = w.div(inv)",
        "mv = torch.full((), torch.finfo(q.dtype).min, dtype=q.dtype)",
        f"w = torch.where({causal}, w, mv)",
    ]
    if n == 19:
        mask = s.add_input("mask", tensor(rng, rng.choice(([b, 1, 1, sk], [1, 1, sq, sk])), dtype))
        s.body += [f"w = w + {mask}", "w = w.softmax(dim=-1).type(v.dtype)"]
        s.ret = f"{_dropout(rng, s, 'w')}.matmul(v)"
    else:
        if s.module:
            s.init.append("self.drop = nn.Dropout(0.1)")
        s.ret = f"({_dropout(rng, s, 'w.softmax(dim=-1)')}.matmul(v), k, v)"
    _grad(rng, s, dtype, 0.2)
    s.note(dtype=dtype, bhsqskd=(b, h, sq, sk, d), module=s.module)
    return s


def sfdp_float_softmax(rng: random.Random, target: str) -> Spec:
    n = int(target.rsplit("_", 1)[1])
    s = Spec()
    b, h, sq, sk, d = _sizes(rng)
    dtype = rng.choice(("float16", "bfloat16", "float32"))
    _permuted_inputs(rng, s, b, h, sq, sk, d, dtype)
    s.body.append("score = torch.matmul(q, k.permute(0, 1, 3, 2))")
    if n in (21, 22, 25, 26):
        mask = _additive_mask(rng, s, b, sq, sk, dtype, promote_ok=True)
        s.body.append(f"score = score + {mask}")
        if n in (21, 22):
            s.body.append("score = score.type_as(q)")
    else:
        s.body += ["f32 = score.float()", "score = f32.type_as(q)"]
    w = "score.float().softmax(dim=-1).type_as(q)"
    if n in (25, 26, 27):
        w = _dropout(rng, s, w)
    out = f"{w}.matmul(v)"
    s.ret = f"({out}, k, v)" if n in (22, 23, 26, 27) else out
    s.note(dtype=dtype, bhsqskd=(b, h, sq, sk, d))
    return s


def sfdp_bmm_view(rng: random.Random, target: str) -> Spec:
    s = Spec()
    b, h, sq, sk, d = _sizes(rng)
    dtype = pick_float(rng)
    _qkv(rng, s, [b, h, sq, d], [b, h, sk, d], dtype)
    form = rng.choices(("tensor", "scalar", "0-d", "5-d"), (0.7, 0.1, 0.1, 0.1))[0]
    if form == "scalar":  # softmax is shift-invariant: a constant "mask" is a valid program
        mask = s.add_input("mask", fmt(rng.choice((2.0, -1.5, 0.0))))
    elif form == "0-d":
        mask = s.add_input("mask", f"torch.tensor({rng.choice((2.0, -1.5))}, dtype=torch.{dtype})")
    else:
        shape = rng.choice(([b, 1, 1, sk], [b, 1, sq, sk]))
        mask = s.add_input("mask", tensor(rng, [1, *shape] if form == "5-d" else shape, dtype))
    s.note(mask_form=form)
    s.body += [
        "bs, nh, sl, hs = q.shape",
        "q2 = q.view(bs * nh, -1, hs)" if rng.random() < 0.5 else "q2 = q.reshape(bs * nh, -1, hs)",
        "k2 = k.reshape(bs * nh, -1, hs)",
        "v2 = v.reshape(bs * nh, -1, hs)",
        "w = torch.bmm(q2, k2.transpose(1, 2))",
        f"w = w.view(bs, nh, sl, -1) + {mask}",
        "w = w.view(bs * nh, sl, -1)",
        "w = F.softmax(w, dim=-1)",
    ]
    if dtype == "float16":
        s.body.append("w = w.to(torch.half)")
    s.ret = "torch.bmm(w, v2).view(bs, nh, sl, hs)"
    s.note(dtype=dtype, bhsqskd=(b, h, sq, sk, d))
    return s


def _names(*ns: int) -> tuple[str, ...]:
    return tuple(f"_sfdp_pattern_{n}" for n in ns)


TEMPLATES_ATTN: tuple[Template, ...] = (
    Template("sfdp_basic", _names(1, 2, 3, 4, 13), sfdp_basic),
    Template("sfdp_mask", _names(5, 6), sfdp_mask),
    Template("sfdp_permute", _names(7, 8, 9, 10, 11, 12, 14), sfdp_permute),
    Template("sfdp_masked_fill", _names(15, 16, 17, 20), sfdp_masked_fill),
    Template("sfdp_causal", _names(18, 19), sfdp_causal),
    Template("sfdp_float_softmax", _names(21, 22, 23, 25, 26, 27), sfdp_float_softmax),
    Template("sfdp_bmm_view", _names(24), sfdp_bmm_view),
)
