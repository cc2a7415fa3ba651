"""``rewrites`` templates for the passes a config flag switches on: freezing (binary folding of
conv + constant arithmetic, conv-bn folding, the mkldnn conv/linear + unary/binary fusions,
concatenated linears), the efficient conv-bn-eval pass and the split/cat/stack passes (the batch
fusions are :mod:`torchsmith.generate.rewrites.templates_batch`).

Programs are ``Model``s with seeded parameters and buffers (freezing folds them) and declare
the flags they need in ``compile_config``; the catalog entry gives the flags, the template adds
the options it varies (``min_fuse_set_size``). Frozen models run without grad (the checker puts
models in ``eval()``); the efficient conv-bn pass gets ``check_options = {"grad": True}``.
"""

from __future__ import annotations

import math
import random

from torchsmith.generate.rewrites.base import Spec, Template, buffer_init, fmt, pick_layout, tensor

FREEZE = {"inductor.freezing": True}
_UNARY = (
    "torch.relu(h)",
    "torch.sigmoid(h)",
    "torch.tanh(h)",
    "F.hardswish(h)",
    "F.silu(h)",
    "F.gelu(h)",
    'F.gelu(h, approximate="tanh")',
    "F.leaky_relu(h, 0.1)",
    "F.relu6(h)",
    "F.hardtanh(h, -0.5, 0.5)",
    "F.hardsigmoid(h)",
    "h.clamp(-1.0, 2.0)",
    "F.elu(h)",
    "h.abs()",
    "F.mish(h)",
)


def _conv(
    rng: random.Random,
    s: Spec,
    cin: int,
    cout: int,
    dims: int = 2,
    transpose: bool = False,
    name: str = "conv",
    dtype: str = "float32",
) -> tuple[int, int]:
    """Adds ``self.<name>``; returns (padding, kernel) so callers can size inputs."""
    k = rng.choice((1, 3, 3, 2))
    groups = rng.choice((1, 1, 1, cin)) if cin == cout and not transpose else 1
    stride = rng.choice((1, 1, 2))
    pad = rng.choice((0, 1)) if k > 1 else 0
    dil = rng.choice((1, 1, 2)) if not transpose else 1
    cls = f"nn.Conv{'Transpose' if transpose else ''}{dims}d"
    bias = rng.random() < 0.75
    args = f"{cin}, {cout}, {k}, stride={stride}, padding={pad}, dilation={dil}, groups={groups}, bias={bias}"
    cast = f".to(torch.{dtype})" if dtype != "float32" else ""
    s.init.append(f"self.{name} = {cls}({args}){cast}")
    s.note(**{f"{name}": f"{cls}(k={k},s={stride},p={pad},d={dil},g={groups},bias={bias})"})
    return pad, k


def _image(rng: random.Random, s: Spec, cin: int, dims: int, dtype: str = "float32") -> str:
    shape = [rng.choice((1, 2)), cin] + [rng.choice((5, 6, 8, 9)) for _ in range(dims)]
    layout = pick_layout(rng, len(shape), ("contiguous", "channels_last", "offset"))
    return s.add_input("x", tensor(rng, shape, dtype, layout))


def conv_binary_folding(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True, config=dict(FREEZE))
    dims = rng.choice((2, 2, 1, 3))
    cin, cout = rng.choice((1, 3, 4)), rng.choice((2, 4, 8))
    _conv(rng, s, cin, cout, dims)
    x = _image(rng, s, cin, dims)
    s.body.append(f"h = self.conv({x})")
    for i in range(rng.randint(1, 3)):
        op = rng.choice(("+", "-", "*", "/"))
        kind = rng.choice(("channel", "channel", "scalar", "zero_dim", "spatial"))
        if kind == "scalar":
            s.body.append(f"h = h {op} {fmt(rng.choice((0.5, 2.0, -1.5, 3.0)))}")
            continue
        shapes = {"channel": [cout] + [1] * dims, "zero_dim": [], "spatial": [1] * (dims + 2)}
        shape = shapes[kind]
        if kind == "channel" and rng.random() < 0.4:
            shape = [1, *shape]
        s.init += buffer_init(f"c{i}", shape, seed=rng.randrange(1000))
        if op == "/":
            s.init.append(f"self.c{i} = self.c{i}.abs() + 0.5")
        s.body.append(f"h = h {op} self.c{i}")
        s.note(**{f"c{i}": kind})
    s.ret = "h" if rng.random() < 0.5 else "torch.relu(h)"
    return s


def _bn_init(rng: random.Random, s: Spec, c: int, dims: int, name: str = "bn") -> None:
    s.init.append(
        f"self.{name} = nn.BatchNorm{dims}d({c}, eps={rng.choice((1e-5, 1e-3))}, "
        f"affine={rng.random() < 0.85})"
    )
    s.init += [
        f"gs = torch.Generator().manual_seed({rng.randrange(1000)})",
        f"self.{name}.running_mean.copy_(torch.randn({c}, generator=gs))",
        f"self.{name}.running_var.copy_(torch.rand({c}, generator=gs) + 0.5)",
    ]


def conv_bn_freezing(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True, config=dict(FREEZE))
    dims = rng.choice((2, 2, 1))
    cin, cout = rng.choice((1, 3, 4)), rng.choice((2, 4, 6))
    _conv(rng, s, cin, cout, dims)
    _bn_init(rng, s, cout, dims)
    x = _image(rng, s, cin, dims)
    s.body.append(f"h = self.bn(self.conv({x}))")
    s.ret = rng.choice(("h", "torch.relu(h)", "h + 1"))
    return s


def _lowp(rng: random.Random) -> str:
    return "bfloat16" if rng.random() < 0.15 else "float32"


def mkldnn_conv_unary(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True, config=dict(FREEZE))
    dtype = _lowp(rng)
    transpose = rng.random() < 0.2
    cin, cout = rng.choice((2, 3, 4)), rng.choice((2, 4, 8))
    _conv(rng, s, cin, cout, 2, transpose, dtype=dtype)
    x = _image(rng, s, cin, 2, dtype)
    act = rng.choice(_UNARY)
    s.body += [f"h = self.conv({x})", f"h = {act}"]
    s.ret = "h"
    s.note(dtype=dtype, act=act, transpose=transpose)
    return s


def mkldnn_conv_binary(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True, config=dict(FREEZE))
    cin, cout = rng.choice((2, 3)), rng.choice((2, 4))
    s.init.append(f"self.conv = nn.Conv2d({cin}, {cout}, 3, padding=1, bias={rng.random() < 0.7})")
    n, hw = rng.choice((1, 2)), rng.choice((4, 5, 8))
    x = s.add_input(
        "x",
        tensor(
            rng, [n, cin, hw, hw], "float32", pick_layout(rng, 4, ("contiguous", "channels_last"))
        ),
    )
    other_kind = rng.choice(("input", "input", "conv2", "broadcast"))
    if other_kind == "conv2":
        s.init.append(f"self.conv2 = nn.Conv2d({cin}, {cout}, 1)")
        other = f"self.conv2({x})"
    else:
        shape = [n, cout, hw, hw] if other_kind == "input" else [1, cout, 1, 1]
        other = s.add_input(
            "y", tensor(rng, shape, "float32", pick_layout(rng, 4, ("contiguous", "channels_last")))
        )
    op = rng.choice(("+", "+", "-"))
    s.body.append(
        f"h = self.conv({x}) {op} {other}"
        if op == "-" or rng.random() < 0.5
        else f"h = {other} + self.conv({x})"
    )
    s.ret = rng.choice(("h", "torch.relu(h)", "F.silu(h)", "torch.sigmoid(h)"))
    s.note(other=other_kind, op=op)
    return s


def mkldnn_linear(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True, config=dict(FREEZE))
    dtype = _lowp(rng)
    fin, fout = rng.choice((3, 8, 16)), rng.choice((1, 4, 8, 17))
    cast = f".to(torch.{dtype})" if dtype != "float32" else ""
    s.init.append(f"self.fc = nn.Linear({fin}, {fout}, bias={rng.random() < 0.8}){cast}")
    lead = rng.choice(([2], [1], [3, 4], [2, 1, 3]))
    x = s.add_input(
        "x",
        tensor(
            rng,
            [*lead, fin],
            dtype,
            pick_layout(rng, len(lead) + 1, ("contiguous", "offset", "transposed")),
        ),
    )
    s.body.append(f"h = self.fc({x})")
    tail = rng.choice(("unary", "unary", "binary", "none"))
    if tail == "unary":
        s.body.append(f"h = {rng.choice(_UNARY)}")
    elif tail == "binary":
        y = s.add_input("y", tensor(rng, [*lead, fout], dtype))
        s.body.append(f"h = h + {y}")
    s.ret = "h"
    s.note(dtype=dtype, lead=lead, tail=tail)
    return s


def concat_linear(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True, config={**FREEZE, "inductor.cpp.enable_concat_linear": True})
    fin, n = rng.choice((4, 8, 16)), rng.choice((2, 3, 3))
    bias = rng.random() < 0.6
    outs = [rng.choice((4, 8, 5)) for _ in range(n)]
    for i, o in enumerate(outs):
        s.init.append(f"self.l{i} = nn.Linear({fin}, {o}, bias={bias})")
    x = s.add_input("x", tensor(rng, [rng.choice((1, 2, 5)), fin], "float32"))
    ys = [f"self.l{i}({x})" for i in range(n)]
    s.ret = f"({', '.join(ys)})" if rng.random() < 0.5 else " + ".join(f"{y}.sum(-1)" for y in ys)
    s.note(n=n, bias=bias, outs=outs)
    return s


def efficient_conv_bn_eval(rng: random.Random, target: str) -> Spec:
    """A convolution (or a ``Linear``: the pass folds those too) and a ``BatchNorm`` in eval
    mode. A share of the convolutions is called functionally with keyword arguments (#196165:
    the pass drops them), and the ``Linear`` programs draw 3-d inputs, whose ``BatchNorm1d``
    normalizes dim 1 while the ``Linear`` maps the last
    (``bench/found/efficient_conv_bn_eval_linear_bn1d_3d.py``)."""
    s = Spec(module=True, config={"inductor.efficient_conv_bn_eval_fx_passes": True})
    if rng.random() < 0.3:
        fin, fout = rng.choice((3, 4)), rng.choice((1, 2, 5))
        s.init.append(f"self.lin = nn.Linear({fin}, {fout}, bias={rng.random() < 0.75})")
        rank3 = rng.random() < 0.7
        c = rng.choice((fout, fout, 1, 3)) if rank3 else fout
        _bn_init(rng, s, c, 1)
        shape = [rng.choice((2, 3)), c, fin] if rank3 else [rng.choice((2, 3)), fin]
        x = s.add_input("x", tensor(rng, shape, "float32"))
        s.body.append(f"h = self.bn(self.lin({x}))")
        s.note(linear=f"rank{len(shape)}", bn_channels=c, features=fout)
    else:
        dims = rng.choice((2, 2, 1, 3))
        cin, cout = rng.choice((1, 3)), rng.choice((2, 4))
        _conv(rng, s, cin, cout, dims)
        _bn_init(rng, s, cout, dims)
        x = _image(rng, s, cin, dims)
        if rng.random() < 0.25:
            conv = (
                f"F.conv{dims}d({x}, self.conv.weight, bias=self.conv.bias, "
                "stride=self.conv.stride, padding=self.conv.padding, "
                "dilation=self.conv.dilation, groups=self.conv.groups)"
            )
            s.body.append(f"h = self.bn({conv})")
            s.note(conv_call="keywords")
        else:
            s.body.append(f"h = self.bn(self.conv({x}))")
    s.ret = rng.choice(("h", "torch.relu(h)"))
    if rng.random() < 0.85:
        s.check["grad"] = True
    return s


def _split_sizes(rng: random.Random, total: int, parts: int) -> list[int]:
    cut = sorted(rng.sample(range(1, total), parts - 1))
    return [b - a for a, b in zip([0, *cut], [*cut, total])]


#: In-place ops on a split/cat result: the pre-grad passes see them (they run before
#: functionalization), and a rewrite that turns the fresh result into a view of the input must
#: not let them write into it (``bench/found/split_cat_passes_alias_input.py``).
INPLACE = {
    "float": ("mul_(2)", "add_(1)", "zero_()", "clamp_(-0.5, 0.5)"),
    "int": ("add_(1)", "mul_(3)"),
}


def _inplace_tail(rng: random.Random, s: Spec, dtype: str, p: float = 0.3) -> None:
    """With probability ``p``, bind the result to ``y`` and change it in place before returning
    it (the inputs after the call are compared too)."""
    if s.ret.startswith("(") or rng.random() >= p:
        return
    op = rng.choice(INPLACE["int" if dtype.startswith("int") else "float"])
    s.body += [f"y = {s.ret}", f"y.{op}"]
    s.ret = "y"
    s.note(inplace=op)


def split_cat(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3))
    shape = [rng.choice((2, 3, 4)) for _ in range(rank)]
    d = rng.randrange(rank)
    dd = d - rank if rng.random() < 0.3 else d
    nparts = rng.choice((2, 3))
    stack = target in ("split_stack_to_cats", "move_reshape_out_of_split_stack") or (
        target != "split_cat_to_slices" and rng.random() < 0.2
    )
    shape[d] = nparts * rng.choice((2, 3)) if stack else rng.choice((6, 8, 9))
    dtype = rng.choice(("float32", "float32", "float16", "int64"))
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    if target == "merge_split_squeeze":
        s.body.append(f"parts = [torch.squeeze(t, {dd}) for t in torch.split({x}, 1, dim={dd})]")
        s.ret = f"torch.stack(parts, dim={rng.choice((d, 0))}) * 2"
    elif target == "merge_splits":
        first = rng.randint(1, shape[d] - 2)
        second = _split_sizes(rng, shape[d] - first, 2)
        s.body += [
            f"a, b = torch.split({x}, [{first}, {shape[d] - first}], dim={dd})",
            f"c, e = torch.split(b, {second}, dim={d})",
        ]
        s.ret = "(a + 1, c * 2, e)"
    elif target == "move_reshape_out_of_split_stack":
        s.body += _reshape_pieces(rng, x, shape, d, dd, nparts)
        s.ret = f"torch.stack(r, dim={rng.choice((0, 1))})"
    elif stack:
        size = shape[d] // nparts
        s.body.append(f"p = torch.split({x}, {size}, {dd})")
        items = [f"p[{i}]" for i in range(nparts)]
        s.ret = f"torch.stack([{', '.join(items)}], dim={rng.choice((0, rank))})"
    else:
        sizes = _split_sizes(rng, shape[d], nparts)
        s.body.append(f"p = torch.split({x}, {sizes}, {dd})")
        items = [f"p[{i}]" for i in range(nparts)]
        others = [i for i in range(rank) if i != d]
        cdim = rng.choice(others) if target == "split_cat_to_slices" and rng.random() < 0.6 else d
        if cdim == d and target == "merge_getitem_cat" and rng.random() < 0.5:
            items = items[:-1]
        if target == "mutate_cat_node" and rng.random() < 0.5:  # a consecutive run of the pieces
            lo = rng.randrange(nparts - 1)
            items = items[lo : rng.randint(lo + 1, nparts)]
        if cdim == d and target == "simplify_split_cat" and rng.random() < 0.5:
            other = list(shape)
            other[d] = 2
            y = s.add_input("y", tensor(rng, other, dtype))
            items.insert(rng.randint(0, len(items)), y)
        if cdim != d:  # (pieces must agree off the cat dim: equal split sizes)
            size = shape[d] // nparts
            s.body[-1] = f"p = torch.split({x}.narrow({d}, 0, {size * nparts}), {size}, {dd})"
        s.ret = f"torch.cat([{', '.join(items)}], dim={cdim})"
    _inplace_tail(rng, s, dtype)
    s.note(dim=d, dtype=dtype, stack=stack)
    return s


def _reshape_pieces(
    rng: random.Random, x: str, shape: list[int], d: int, dd: int, nparts: int
) -> list[str]:
    """``split`` into equal pieces, each reshaped alike, as ``r`` (the input of a ``stack``):
    ``move_reshape_out_of_split_stack_pass``'s shape. The pass's own test uses pieces of width
    one; wider pieces are where it permutes the input wrongly
    (``bench/found/move_reshape_out_of_split_stack_wide_pieces.py``)."""
    size = 1 if rng.random() < 0.4 else shape[d] // nparts
    n = math.prod(shape) // shape[d] * size  # elements of one piece
    last = rng.choice([k for k in (2, 3, 4, 6) if n % k == 0] or [1])
    target = rng.choice(([n], [-1, last], [last, -1]))
    split = f"torch.split({x}, {size}, {dd})"
    reshape = rng.choice(("torch.reshape(t, {})", "t.reshape({})")).format(target)
    if size == 1:
        return [f"r = [{reshape} for t in {split}]"]
    return [f"p = {split}", f"r = [{reshape} for t in p]"]


def unbind_stack(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3))
    shape = [rng.choice((1, 2, 3, 4)) for _ in range(rank)]
    d = rng.randrange(rank)
    dtype = rng.choice(("float32", "float32", "int64", "bfloat16"))
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    s.body.append(rng.choice((f"parts = torch.unbind({x}, dim={d})", f"parts = {x}.unbind({d})")))
    items = (
        "parts" if rng.random() < 0.5 else f"[{', '.join(f'parts[{i}]' for i in range(shape[d]))}]"
    )
    if target == "unbind_cat_to_view":
        s.ret = f"torch.cat({items}, dim={rng.randrange(rank - 1)})"
    elif target == "unbind_stack_to_slices":
        s.ret = f"torch.stack({items}, dim={rng.choice([i for i in range(rank) if i != d] or [0])})"
    else:
        s.ret = f"torch.stack({items}, dim={d})"
    s.ret = f"{s.ret} + 1" if rng.random() < 0.5 else s.ret
    _inplace_tail(rng, s, dtype)
    s.note(dim=d, shape=shape)
    return s


def einsum_pointwise(rng: random.Random, target: str) -> Spec:
    """``einsum("bcd,bcde->bce", x, w) + ...`` (the shape ``einsum_to_pointwise_pass``
    rewrites as a broadcast product and a sum), with random letters; a quarter of the programs
    repeat a letter (a diagonal, no sum: ``"bcd,bcdd->bcd"``), which the pass's equation check
    does not tell apart (``bench/found/einsum_to_pointwise_repeated_subscript.py``)."""
    s = Spec()
    b, c, d, e = rng.sample("abcdefghijk", 4)
    sizes = {b: rng.randint(1, 3), c: rng.randint(1, 4), d: rng.randint(2, 5), e: rng.randint(1, 5)}
    eq = f"{b}{c}{d},{b}{c}{d}{e}->{b}{c}{e}"
    if rng.random() < 0.25:
        e = d  # "bcd,bcdd->bcd"
        eq = f"{b}{c}{d},{b}{c}{d}{d}->{b}{c}{d}"
    dtype = rng.choice(("float32", "float32", "float64"))
    x = s.add_input("x", tensor(rng, [sizes[b], sizes[c], sizes[d]], dtype))
    w = s.add_input("w", tensor(rng, [sizes[b], sizes[c], sizes[d], sizes[e]], dtype))
    tail = rng.choice(("1", "0.5", x if e == d else "1"))
    s.ret = f"torch.einsum({eq!r}, {x}, {w}) + {tail}"
    s.config = {"inductor.pre_grad_fusion_options": {"einsum_to_pointwise_pass": {}}}
    s.note(equation=eq, dtype=dtype)
    return s


def split_cat_aten(rng: random.Random, target: str) -> Spec:
    s = Spec()
    rank = rng.choice((2, 3))
    shape = [rng.choice((2, 3, 4)) for _ in range(rank)]
    d = rng.randrange(rank - 1) if target != "merge_split_cat_aten" else rng.randrange(rank)
    shape[d] = rng.choice((3, 4, 6, 9))
    dtype = rng.choice(("float32", "float32", "float16"))
    x = s.add_input("x", tensor(rng, shape, dtype, pick_layout(rng, rank)))
    n = shape[d]
    if target == "merge_select_cat_aten":
        sel = [f"{x}.select({d}, {i})" for i in range(n)]
        s.ret = f"torch.cat([{', '.join(sel)}], dim={d}) * 2"
    elif target == "merge_unbind_stack_aten":
        if rng.random() < 0.5:
            s.ret = f"torch.stack(torch.unbind({x}, {d}), {d}) + 1"
        else:
            sel = [f"{x}.select({d}, {i}).unsqueeze({d})" for i in range(n)]
            s.ret = f"torch.cat([{', '.join(sel)}], dim={d}) + 1"
    else:
        sizes = _split_sizes(rng, n, min(n, rng.choice((3, 4))))
        s.body.append(f"p = torch.split({x}, {sizes}, dim={d})")
        items = [f"p[{i}]" for i in range(len(sizes))]
        other = list(shape)
        other[d] = 2
        items.insert(rng.choice((0, len(items))), s.add_input("y", tensor(rng, other, dtype)))
        s.ret = f"torch.cat([{', '.join(items)}], dim={d})"
        threshold = rng.choice((2, 2, 3))
        s.config = {
            "inductor.post_grad_fusion_options": {
                "normalization_aten_pass": {},
                "split_cat_aten_pass": {"threshold_to_cat": threshold},
            }
        }
        s.note(threshold_to_cat=threshold)
    s.note(dim=d, dtype=dtype)
    return s


def _split_entries(*names: str) -> tuple[str, ...]:
    return names


TEMPLATES_FREEZE: tuple[Template, ...] = (
    Template("conv_binary_folding", ("folded_op",), conv_binary_folding),
    Template("conv_bn_freezing", ("fuse_conv_bn",), conv_bn_freezing),
    Template("mkldnn_conv_unary", ("_register_unary_fusion",), mkldnn_conv_unary),
    Template("mkldnn_conv_binary", ("_register_binary_unary_fusion",), mkldnn_conv_binary),
    Template("mkldnn_linear", ("_register_weight_pack_pass",), mkldnn_linear),
    Template("concat_linear", ("matmul_fuse_pattern",), concat_linear),
    Template(
        "efficient_conv_bn_eval",
        ("efficient_conv_bn_eval_graph_transform_decomposed",),
        efficient_conv_bn_eval,
    ),
    Template(
        "split_cat",
        _split_entries(
            "merge_splits",
            "simplify_split_cat",
            "merge_split_squeeze",
            "merge_getitem_cat",
            "split_cat_to_slices",
            "split_stack_to_cats",
            "mutate_cat_node",
            "move_reshape_out_of_split_stack",
        ),
        split_cat,
    ),
    Template(
        "unbind_stack",
        ("merge_unbind_stack", "unbind_cat_to_view", "unbind_stack_to_slices"),
        unbind_stack,
    ),
    Template("einsum_pointwise", ("replace_einsum_to_pointwise",), einsum_pointwise),
    Template(
        "split_cat_aten",
        ("merge_split_cat_aten", "merge_select_cat_aten", "merge_unbind_stack_aten"),
        split_cat_aten,
    ),
)
