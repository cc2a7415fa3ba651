"""``python`` family fragments, part 1: control flow, loops, shapes and Python scalars.

Every fragment reads the running tensor ``h`` (float, shape ``(B, *b.rest)``, B read only as
``h.shape[0]``) and leaves a new ``h`` whose shape it records in ``b.rest``. Values stay
moderate (affine maps with factors near 1, ``tanh``, divisions by ``1 + |.|``), branches on
values only read exact integer "control" tensors, and a float is never cast to an int.
"""

from __future__ import annotations

from torchsmith.generate.python.builder import Builder, Fragment

SCALES = ("0.5", "0.75", "1.25", "1.5", "2.0", "0.25", "3.0")
#: Python numbers whose type may change between calls (int -> float).
NUMBERS = ("2", "3", "1", "0.5", "1.5", "2.5")
MODES = ('"tanh"', '"sigmoid"', '"relu"', '"sin"')
DTYPES = ("torch.float32", "torch.float64")


def control(b: Builder) -> str:
    """An int64 control tensor argument: exact, so branches on it agree in every run."""
    options = []
    for _ in range(4):
        vals = [b.rng.randint(-3, 3) for _ in range(b.rng.randint(2, 4))]
        options.append(f"torch.tensor([{', '.join(map(str, vals))}])")
    return b.param("c", "control", options, vary=0.6)


def scalar(b: Builder, options: tuple[str, ...] = SCALES) -> str:
    return b.param("s", "scalar", options, vary=0.7, keyword=0.3)


# -- control flow -------------------------------------------------------------------------------
def shape_if(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v == 0:
        lo, hi = min(b.batch), max(b.batch)
        k = b.rng.randint(lo, hi - 1) if hi > lo else b.rng.randint(1, 6)
        b.emit(
            f"if h.shape[0] > {k}:", "    h = h * 0.5 + 1.0", "else:", "    h = h.flip(0) - 0.25"
        )
    elif v == 1:
        b.emit(
            "if h.dim() == 3 and h.shape[1] > 2:",
            "    h = h * 0.75",
            "elif h.shape[-1] % 2 == 0:",
            "    h = h - 0.5",
            "else:",
            "    h = h + h.mean()",
        )
    elif v == 2:
        b.emit("if len(h) % 2 == 0:", "    h = h.roll(1, 0)", "else:", "    h = h * -0.5")
    else:
        b.emit(f"h = h * 0.5 if h.size(-1) > {b.rng.randint(2, 6)} else h + 1.0")


def value_if(b: Builder) -> None:
    c = control(b)
    cond = b.choice(
        (f"{c}.sum() > 0", f"{c}.max().item() > 1", f"bool(({c} > 0).all())", f"{c}[0] > {c}[-1]")
    )
    b.emit(
        f"if {cond}:",
        f"    h = h * 0.5 + {c}.to(h.dtype).mean()",
        "else:",
        "    h = h.flip(-1) - 0.5",
    )
    b.feature("data_dependent")


def range_loop(b: Builder) -> None:
    n = b.param("n", "count", ("1", "2", "3"), vary=0.6, keyword=0.2)
    v = b.rng.randrange(4)
    if v == 0:
        b.emit(f"for i in range({n}):", "    h = h * 0.75 + 0.1 * i")
    elif v == 1:
        b.emit(f"for i in range(1, {n} + 1):", "    h = torch.tanh(h) * (1.0 + 0.1 * i)")
    elif v == 2:
        b.emit(
            f"for i in reversed(range({n} + 1)):",
            "    if i % 2 == 1:",
            "        continue",
            "    h = h - 0.1 * h.mean() + 0.05 * i",
        )
    else:
        i = b.fresh("i")
        b.emit(f"{i} = 0", f"while {i} < {n}:", "    h = h * 0.5 + 0.25", f"    {i} += 1")


def list_loop(b: Builder) -> None:
    f = b.last
    lens = ("1", "2", "3")
    opts = [f"[torch.randn({f}, generator=g) for _ in range({n})]" for n in lens]
    if b.rng.random() < 0.3:
        opts = [f"tuple({o})" for o in opts]
    ts = b.param("ts", "list", opts, vary=0.4)
    v = b.rng.randrange(6)
    if v == 0:
        b.emit(f"for t in {ts}:", "    h = h + t")
    elif v == 1:
        b.emit(f"for i, t in enumerate({ts}):", "    h = h + t * (i + 1) * 0.5")
    elif v == 2:
        w = b.fresh("WEIGHTS")
        b.top(w, f"{w} = (0.5, -0.25, 0.75)")
        b.emit(f"for t, w in zip({ts}, {w}):", "    h = h + w * t")
    elif v == 3:
        b.emit(f"for t in reversed({ts}):", "    h = h * 0.5 + t")
    elif v == 4:
        b.emit(f"h = h + torch.stack({ts}).sum(0)")
    else:
        b.emit(f"h = h + torch.stack([t * 2.0 for t in {ts}]).mean(0) + len({ts}) * 0.1")


def dict_loop(b: Builder) -> None:
    f = b.last
    orders = (("a", "b"), ("b", "a"), ("a", "b", "c"), ("c", "a"))
    opts = [
        "{" + ", ".join(f'"{k}": torch.randn({f}, generator=g)' for k in keys) + "}"
        for keys in orders
    ]
    d = b.param("d", "dict", opts, vary=0.5)
    v = b.rng.randrange(4)
    if v == 0:
        b.emit(f"for k, v in {d}.items():", '    h = h + v if k == "a" else h - 0.5 * v')
    elif v == 1:
        b.emit(f"for k in sorted({d}):", f"    h = h * 0.5 + {d}[k]")
    elif v == 2:
        b.emit(f"h = h + sum({d}.values()) / len({d})")
    else:
        b.emit(
            f'if "c" in {d}:',
            f'    h = h + {d}["c"]',
            f'h = h - {d}.get("b", {d}["a"]) * 0.5',
        )


def comprehension(b: Builder) -> None:
    v = b.rng.randrange(4) if b.last >= 2 else 3
    if v == 0:
        b.emit(
            "h = torch.cat([c * (j + 1) * 0.5 for j, c in enumerate(h.chunk(2, dim=-1))], dim=-1)"
        )
    elif v == 1:
        b.emit(
            "h = torch.stack([h[..., j] * (0.5 if j % 2 else 1.0) for j in range(h.shape[-1])],"
            " dim=-1)"
        )
    elif v == 2:
        cols = b.fresh("cols")
        b.emit(
            f"{cols} = {{j: h[..., j] for j in range(h.shape[-1])}}",
            f"h = torch.stack([{cols}[j] for j in sorted({cols}, reverse=True)], dim=-1)",
        )
    else:
        b.emit("h = torch.cat([r.unsqueeze(0) * 0.5 for r in h], dim=0)")


def genexpr(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v == 0:
        b.emit("h = h + sum(t * 0.25 for t in h.unbind(-1)).unsqueeze(-1)")
    elif v == 1:
        b.emit("if all(s > 1 for s in h.shape):", "    h = h * 0.5")
    elif v == 2:
        b.emit("h = h + sum(h.shape) * 0.01 - max(d for d in h.shape[1:]) * 0.02")
    else:
        b.emit("h = h + sum(h[..., :1] * k for k in range(3)) * 0.1")


def grow_iter(b: Builder) -> None:
    vals = b.fresh("vals")
    b.emit(f"{vals} = [h.mean(-1)]")
    if b.rng.random() < 0.5:
        b.emit(
            f"for item in {vals}:",
            f"    if len({vals}) < 3:",
            f"        {vals}.append(item * 0.5 + 1.0)",
        )
    else:
        walk = b.fresh("walk")
        b.emit(
            f"def {walk}():",
            f"    for item in {vals}:",
            f"        if len({vals}) < 3:",
            f"            {vals}.append(item * 0.5 + 1.0)",
            "        yield item",
            f"{vals} = list({walk}())",
        )
    b.emit(f"h = h + torch.stack({vals}).sum(0).unsqueeze(-1) * 0.25")


# -- shapes -------------------------------------------------------------------------------------
def size_view(b: Builder) -> None:
    f = b.last
    v = b.rng.randrange(4)
    if v == 0:
        b.emit("h = h.reshape(*h.shape[:-1], 2, h.shape[-1] // 2)")
        b.rest = [2, f // 2]
    elif v == 1:
        b.emit("h = h.contiguous().view(h.shape[0], -1, 2)")
        b.rest = [f // 2, 2]
    elif v == 2:
        shp = b.fresh("shape")
        b.emit(f"{shp} = h.shape[:-1] + (2, h.shape[-1] // 2)", f"h = h.reshape({shp})")
        b.rest = [2, f // 2]
    else:
        b.emit("h = h.unflatten(-1, (2, -1))")
        b.rest = [2, f // 2]


def size_flatten(b: Builder) -> None:
    a, c = b.rest
    v = b.rng.randrange(4)
    if v == 0:
        b.emit("h = h.flatten(1)")
    elif v == 1:
        b.emit("h = h.reshape(h.shape[0], -1)")
    elif v == 2:
        b.emit("h = h.contiguous().view(*h.shape[:-2], h.shape[-2] * h.shape[-1])")
    else:
        b.need("math")
        b.emit("h = h.transpose(1, 2).reshape(len(h), math.prod(h.shape[1:]))")
    b.rest = [a * c]


def size_pad(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v == 0:
        b.emit("h = torch.cat([h, h.new_zeros(*h.shape[:-1], 2)], dim=-1)")
        b.rest[-1] += 2
    elif v == 1:
        b.emit("h = torch.cat([h, torch.ones(h.shape[:-1] + (1,), dtype=h.dtype)], dim=-1)")
        b.rest[-1] += 1
    elif v == 2 and b.last > 2:
        b.emit("h = h[..., : h.shape[-1] - 1] * 1.5")
        b.rest[-1] -= 1
    else:
        b.emit("h = torch.cat([h.new_full((*h.shape[:-1], 1), 0.5), h], dim=-1)")
        b.rest[-1] += 1


def size_scalar(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v == 0:
        b.need("math")
        b.emit("h = h / math.sqrt(h.shape[-1])")
    elif v == 1:
        b.emit("h = h * (h.numel() / (h.shape[0] * h[0].numel())) + h.dim() * 0.1")
    elif v == 2:
        b.emit(f"if h.shape[1:] == torch.Size({list(b.rest)}):", "    h = h * 0.5")
    else:
        b.emit("h = h + h.size(-1) * 0.05")
    if b.rng.random() < 0.4:
        b.output(b.choice(("h.shape", "tuple(h.shape[1:])", "h.dim()", "h.shape[0] * 2")))
        b.feature("size_output")


def ctor(b: Builder) -> None:
    v = b.rng.randrange(5)
    if v == 0:
        b.emit("h = h + torch.arange(h.shape[-1], dtype=h.dtype) / h.shape[-1]")
    elif v == 1:
        b.emit("h = h * torch.linspace(0.5, 1.5, h.shape[-1], dtype=h.dtype)")
    elif v == 2:
        b.emit("h = h + torch.full(h.shape[1:], 0.25, dtype=h.dtype)")
    elif v == 3:
        b.emit("h = h @ (torch.eye(h.shape[-1], dtype=h.dtype) * 0.5 + 0.1)")
    else:
        b.emit("h = h * torch.ones(len(h), *[1] * (h.dim() - 1), dtype=h.dtype) * 0.5")


# -- Python scalars -------------------------------------------------------------------------------
def item_float(b: Builder) -> None:
    v = b.rng.randrange(3)
    if v == 0:
        b.emit("h = h / (1.0 + h.abs().mean().item())")
    elif v == 1:
        m = b.fresh("m")
        b.emit(f"{m} = float(h.abs().max())", f"h = h / ({m} + 1.0)")
    else:
        vals = b.fresh("vals")
        b.emit(
            f"{vals} = h.mean(0).flatten().tolist()",
            f"h = h + torch.tensor({vals}, dtype=h.dtype).reshape(h.shape[1:]) * 0.5",
        )
    b.feature("item")
    if b.rng.random() < 0.4:
        b.config["dynamo.capture_scalar_outputs"] = True


def item_int(b: Builder) -> None:
    c = control(b)
    v = b.rng.randrange(4)
    if v == 0:
        b.emit(f"h = h.roll(int({c}.abs().max().item()) % h.shape[-1], -1)")
    elif v == 1:
        vals = b.fresh("vals")
        b.emit(f"{vals} = {c}.tolist()", f"h = h * (1.0 + sum({vals}) / 10.0)")
    elif v == 2:
        b.emit(f"h = h + {c}.sum().item() * 0.1")
    else:
        b.emit(f"for v in {c}.tolist():", "    h = h + v * 0.05")
    b.feature("item")
    if b.rng.random() < 0.4:
        b.config["dynamo.capture_scalar_outputs"] = True


def math_scalar(b: Builder) -> None:
    b.need("math")
    s = scalar(b, NUMBERS + SCALES)
    v = b.rng.randrange(4)
    if v == 0:
        b.emit(f"h = h * math.sqrt(abs({s}) + 1.0) + math.sin({s})")
    elif v == 1:
        b.emit(f"h = h * math.exp(-abs({s})) + math.log1p(abs({s}))")
    elif v == 2:
        a = b.fresh("a")
        b.emit(f"{a} = math.cos({s}) ** 2", f"h = h * {a} + (1.0 - {a})")
    else:
        b.emit(f"h = h * math.tanh({s}) + math.floor({s}) * 0.1 + math.pi * 0.01")


def scalar_kwarg(b: Builder) -> None:
    s = scalar(b)
    nn_f = "torch.nn.functional"
    b.emit(
        b.choice(
            (
                f"h = {nn_f}.rms_norm(h, (h.shape[-1],), eps=abs({s}) + 1e-3)",
                f"h = {nn_f}.layer_norm(h, h.shape[-1:], eps=abs({s}) * 0.5 + 1e-3)",
                f"h = torch.clamp(h, min=-abs({s}) - 0.5, max=abs({s}) + 0.5)",
                f"h = {nn_f}.leaky_relu(h, negative_slope=abs({s}) / 10)",
                f"h = {nn_f}.elu(h, alpha=abs({s}) + 0.1)",
                f"h = {nn_f}.hardtanh(h, -abs({s}) - 1.0, abs({s}) + 1.0)",
                f"h = torch.add(h, h.flip(0), alpha={s})",
                f"h = torch.lerp(h, h.flip(-1), min(abs({s}), 1.0))",
            )
        )
    )


def flag_bool(b: Builder) -> None:
    flag = b.param("flag", "flag", ("True", "False"), vary=0.7, keyword=0.3)
    v = b.rng.randrange(3)
    if v == 0:
        b.emit(f"if {flag}:", "    h = -h * 0.5", "else:", "    h = h + 1.0")
    elif v == 1:
        b.emit(f"h = h * (2.0 if {flag} else 0.5)")
    else:
        b.emit(f"if not {flag} and h.dim() == 2:", "    h = torch.where(h > 0, h, h * 0.1)")


def mode_str(b: Builder) -> None:
    mode = b.param("mode", "mode", MODES, vary=0.7, keyword=0.3)
    v = b.rng.randrange(4)
    if v == 0:
        b.emit(f"h = getattr(torch, {mode})(h)")
    elif v == 1:
        b.emit(
            f'if {mode} == "tanh":',
            "    h = torch.tanh(h)",
            f'elif {mode}.startswith("sig"):',
            "    h = torch.sigmoid(h)",
            "else:",
            "    h = h * 0.5",
        )
    elif v == 2:
        acts = b.fresh("ACTS")
        b.top(
            acts,
            f'{acts} = {{"tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,'
            ' "sin": torch.sin}',
        )
        b.emit(f"h = {acts}[{mode}](h)")
    else:
        key = b.fresh("key")
        b.emit(
            f'{key} = f"{{{mode}}}_{{h.dim()}}"',
            f'h = h * len({mode}) / 4 if {key}.endswith("_2") else h - 0.5',
        )


def dtype_arg(b: Builder) -> None:
    dt = b.param("dt", "dtype", DTYPES, vary=0.6, keyword=0.3)
    v = b.rng.randrange(4)
    if v == 0:
        b.emit(f"h = h + torch.ones(h.shape[-1], dtype={dt}) * 0.5")
    elif v == 1:
        b.emit(f"h = h.to({dt}) * 0.5")
    elif v == 2:
        b.emit(f"if {dt} is torch.float64:", "    h = h * 2.0", "else:", "    h = h - 1.0")
    else:
        b.emit(f"h = h + torch.finfo({dt}).eps")
        b.output(f"h.sum(-1, dtype={dt})")


def isinstance_check(b: Builder) -> None:
    s = b.param("s", "scalar", NUMBERS, vary=0.8)
    v = b.rng.randrange(3)
    if v == 0:
        b.emit(f"if isinstance({s}, int):", f"    h = h + {s} * 0.5", "else:", f"    h = h * {s}")
    elif v == 1:
        b.emit(f"h = h * {s} if type({s}) is float else h - {s}")
    else:
        b.emit(
            f"if isinstance(h, torch.Tensor) and not isinstance({s}, bool):",
            f"    h = h + float({s}) * 0.25",
        )


def _is_rank2_even(b: Builder) -> bool:
    return b.rank == 2 and b.last % 2 == 0 and b.last >= 2


FRAGMENTS_1 = [
    Fragment("shape_if", shape_if, fullgraph=True),
    Fragment("value_if", value_if, weight=1.2),
    Fragment("range_loop", range_loop, fullgraph=True),
    Fragment("list_loop", list_loop, fullgraph=True),
    Fragment("dict_loop", dict_loop, fullgraph=True),
    Fragment("comprehension", comprehension, fullgraph=True),
    Fragment("genexpr", genexpr),
    Fragment("grow_iter", grow_iter, weight=0.5),
    Fragment("size_view", size_view, ok=_is_rank2_even, fullgraph=True),
    Fragment("size_flatten", size_flatten, ok=lambda b: b.rank == 3, fullgraph=True),
    Fragment("size_pad", size_pad, ok=lambda b: b.last <= 8, fullgraph=True),
    Fragment("size_scalar", size_scalar, fullgraph=True),
    Fragment("ctor", ctor, fullgraph=True),
    Fragment("item_float", item_float),
    Fragment("item_int", item_int),
    Fragment("math_scalar", math_scalar, fullgraph=True),
    Fragment("scalar_kwarg", scalar_kwarg, weight=1.3, fullgraph=True),
    Fragment("flag_bool", flag_bool, fullgraph=True),
    Fragment("mode_str", mode_str),
    Fragment("dtype_arg", dtype_arg, where="function"),
    Fragment("isinstance_check", isinstance_check),
]

__all__ = ["FRAGMENTS_1", "control", "scalar"]
