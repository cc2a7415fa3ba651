"""AST mutation operators for canonical programs (used by :mod:`torchsmith.generate.mutate.generator`).

Each operator takes the parsed program (:class:`~torchsmith.generate.mutate.sites.Sites`) and a seeded ``random.Random``, rewrites
the tree in place and returns a one-line description, or ``None`` when it has nothing to work on.
Operators only edit syntax: whether a mutant still runs is decided afterwards by the eager check
in a worker. Nothing here executes program code; ``torch`` is imported only to ask which
functions exist (``hasattr``).

Names the operators introduce start with ``ts_`` and are made unique against the program's own.
"""

from __future__ import annotations

import ast
import math
import random
from collections.abc import Callable

from torchsmith.generate.mutate.keywords import keywords
from torchsmith.generate.mutate.sites import (
    Anchor,
    Sites,
    anchored,
    anchors,
    available,
    binop_name,
    call_form,
    ensure_helper,
    ensure_init,
    expr,
    fresh,
    insert_after,
    model_nodes,
    op_calls,
    pick_anchor,
    stmts,
)
from torchsmith.program.format import dotted_name

# -- compatible-op groups (by the function's last name; the form decides what exists) ----------
SWAP_GROUPS: list[tuple[str, ...]] = [
    tuple(g.split())
    for g in (
        # smooth unary pointwise ops and activations (floor/sign-like jumps left out on purpose)
        "relu sigmoid tanh sin cos abs neg exp expm1 erf atan square gelu silu mish softplus"
        " hardswish hardsigmoid elu selu relu6 leaky_relu logsigmoid softsign tanhshrink"
        " hardtanh celu",
        "add sub mul maximum minimum fmax fmin hypot atan2 logaddexp",
        "sum mean amax amin nansum nanmean",
        "softmax log_softmax softmin",
        "cumsum logcumsumexp",
        "cummax cummin",
        "eq ne lt le gt ge",
        "logical_and logical_or logical_xor",
        "bitwise_and bitwise_or bitwise_xor",
        "mm matmul",
        "bmm matmul",
        "max_pool1d avg_pool1d",
        "max_pool2d avg_pool2d",
        "max_pool3d avg_pool3d",
        "adaptive_avg_pool1d adaptive_max_pool1d",
        "adaptive_avg_pool2d adaptive_max_pool2d",
        "adaptive_avg_pool3d adaptive_max_pool3d",
        # modules constructed without arguments
        "ReLU GELU SiLU Tanh Sigmoid Hardswish Mish ELU SELU ReLU6 LeakyReLU Softplus"
        " Hardsigmoid Softsign Tanhshrink Identity",
        "MaxPool1d AvgPool1d",
        "MaxPool2d AvgPool2d",
        "MaxPool3d AvgPool3d",
        "BatchNorm1d InstanceNorm1d",
        "BatchNorm2d InstanceNorm2d",
        "BatchNorm3d InstanceNorm3d",
    )
]

#: String-valued keywords and the values they may take.
STRING_CHOICES: dict[str, tuple[str, ...]] = {
    "mode": tuple("nearest bilinear bicubic area nearest-exact constant reflect replicate".split())
    + ("circular",),
    "padding_mode": ("zeros", "reflect", "replicate", "circular"),
    "approximate": ("none", "tanh"),
    "rounding_mode": ("floor", "trunc"),
    "reduce": ("sum", "prod", "mean", "amax", "amin"),
}

FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
INT_DTYPES = ("int64", "int32", "int16", "int8", "uint8")
CAST_METHODS = ("float", "double", "half", "bfloat16")
SKIP_KEYWORDS = {"dtype", "device", "generator", "requires_grad", "memory_format", "out"}
CREATION_FNS = {"randn", "rand", "zeros", "ones", "empty", "full", "randperm", "arange"}

#: Shape-preserving statements the insert operator adds after ``v = ...`` ({v} is the variable).
INSERT_TEMPLATES: tuple[str, ...] = (
    "{v} = torch.tanh({v})",
    "{v} = torch.sigmoid({v})",
    "{v} = torch.nn.functional.gelu({v})",
    "{v} = {v} * 0.5 + 0.25",
    "{v} = torch.clamp({v}, -2.0, 2.0)",
    "{v} = {v}.abs()",
    "{v} = torch.where({v} > 0, {v}, {v} * 0.1)",
    "{v} = {v} + {v}.mean(dim=-1, keepdim=True)",
    "{v} = torch.softmax({v}, dim=-1)",
    "{v} = {v}.cumsum(dim=-1)",
    "{v} = {v}.flip(-1)",
    "{v} = {v} - {v}.amax(dim=-1, keepdim=True)",
    "{v} = {v}.square()",
    "{v} = torch.nn.functional.layer_norm({v}, {v}.shape[-1:])",
    "{v} = {v} + {v}.sum(dim=0, keepdim=True)",
    "{v} = torch.nn.functional.pad({v}, (1, 1))",
    "{v} = {v}.unsqueeze(0).squeeze(0)",
    "{v} = torch.cat([{v}, {v}], dim=-1)",
)
BINARY_TEMPLATES = (
    "{v} = {v} + {w}",
    "{v} = torch.maximum({v}, {w})",
    "{v} = {v} * {w}.mean()",
    "{v} = {v} - {w}.sum()",
)
LAYER_MODULES = tuple(
    f"torch.nn.{m}"
    for m in "Identity() ReLU() Tanh() Sigmoid() SiLU() GELU() Hardtanh() LeakyReLU(0.1)".split()
)
INPLACE_NAMES = set(
    "relu sigmoid tanh abs neg exp sin cos add sub mul div clamp erf atan square fmod remainder"
    " lerp addcmul addcdiv masked_fill index_add index_fill scatter scatter_add hypot atan2 pow"
    " exp2 expm1 log1p sinh cosh reciprocal rsqrt sqrt log copysign".split()
)
_F_INPLACE = set(
    "relu relu6 elu selu celu leaky_relu hardtanh silu mish hardswish hardsigmoid threshold".split()
)
_NN_INPLACE = set(
    "ReLU ReLU6 ELU SELU CELU LeakyReLU Hardtanh SiLU Mish Hardswish Hardsigmoid".split()
)

#: What :func:`containers` routes a tensor ``{v}`` through (``{b}``: the container's name).
CONTAINER_SNIPPETS = {
    "list": "{b} = [{v}]\n{b}.append({v} * 1.0)\n{v} = {b}[-1] if len({b}) > 1 else {b}[0]",
    "dict": "{b} = {{'a': {v}, 'n': 2}}\n{b}['b'] = [{v}] * {b}['n']\n"
    "{v} = sum({b}['b']) / {b}['n']",
    "tuple": "{b} = ({v}, {v}.shape)\n{v}, _ts_shape = {b}\n{v} = {v}.reshape(_ts_shape)",
    "dict+loop": "{b} = {{}}\nfor _ts_k in ('x', 'y'):\n    {b}[_ts_k] = {v}\n"
    "{v} = {b}['x'] + {b}['y'] - {v}",
}
#: The graph breaks :func:`graph_break` inserts after ``{v}`` (``{n}``: a fresh scalar's name).
GRAPH_BREAK_SNIPPETS = {
    "explicit": "torch._dynamo.graph_break()",
    "branch": "if {v}.sum() > 0:\n    {v} = {v} + 1\nelse:\n    {v} = {v} - 1",
    "item": "{n} = float({v}.float().mean())\n{v} = {v} * (0.5 if {n} > 0 else 2.0)",
    "tolist": "{n} = len({v}.reshape(-1)[:2].tolist())\n{v} = {v} * {n}",
}


# -- the operators ------------------------------------------------------------------------------
def _call_swap(call: ast.Call) -> tuple[ast.Call, str, list[str]] | None:
    """``(call, name, alternatives)`` for a call :func:`swap_op` can rename, else ``None``."""
    form = call_form(call)
    if form is None:
        return None
    kind, name = form
    if kind == "nn" and (call.args or call.keywords) and name[0].isupper():
        if not name.startswith(("MaxPool", "AvgPool", "BatchNorm", "InstanceNorm")):
            return None
    alts = sorted(
        {a for g in SWAP_GROUPS if name in g for a in g if a != name and available(kind, a)}
    )
    return (call, name, alts) if alts else None


def swap_op(s: Sites, rng: random.Random) -> str | None:
    """Replace a call or operator by a compatible one (``relu`` -> ``gelu``, ``+`` -> ``*``)."""
    choices: list[tuple[ast.AST, str, list[str]]] = []
    for node in model_nodes(s):
        if isinstance(node, ast.Call):
            swap = _call_swap(node)
            if swap is not None:
                choices.append(swap)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
            alts = [n for n in ("Add", "Sub", "Mult") if n != binop_name(node.op)]
            choices.append((node, binop_name(node.op), alts))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            names = ["Lt", "LtE", "Gt", "GtE", "Eq", "NotEq"]
            cur = type(node.ops[0]).__name__
            if cur in names:
                choices.append((node, cur, [n for n in names if n != cur]))
    if not choices:
        return None
    node, old, alts = rng.choice(choices)
    new = rng.choice(alts)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Attribute)
        node.func.attr = new
    elif isinstance(node, ast.BinOp):
        node.op = getattr(ast, new)()
    elif isinstance(node, ast.Compare):
        node.ops = [getattr(ast, new)()]
    return f"swap_op: {old} -> {new} (line {getattr(node, 'lineno', '?')})"


def _int_choices(v: int, is_dim: bool) -> list[int]:
    if is_dim:
        cands = [-1, 0, 1, -2, v + 1, v - 1]
    else:
        cands = [v + 1, v - 1, 2 * v, v // 2, 1, 3, 0]
    return sorted({c for c in cands if c != v and abs(c) <= 64})


def _float_choices(v: float) -> list[float]:
    return sorted({c for c in (v * 2, v / 2, -v, 0.0, 1.0, 1e-3, 3.0) if c != v})


def change_attr(s: Sites, rng: random.Random) -> str | None:
    """Change a constant argument of an op or layer: dims, flags, sizes, modes, epsilons."""
    sites: list[tuple[ast.Constant, str]] = []
    roots: list[ast.AST] = [s.model] + ([s.init_inputs] if s.init_inputs else [])
    for root in roots:
        for node in ast.walk(root):
            if not isinstance(node, ast.Call) or dotted_name(node.func).endswith("manual_seed"):
                continue
            for kw in node.keywords:
                if kw.arg and kw.arg not in SKIP_KEYWORDS and isinstance(kw.value, ast.Constant):
                    sites.append((kw.value, kw.arg))
                elif kw.arg and isinstance(kw.value, ast.UnaryOp):
                    if isinstance(kw.value.operand, ast.Constant):  # dim=-1
                        sites.append((kw.value.operand, kw.arg))
            for a in node.args:
                if isinstance(a, ast.Constant) and not isinstance(a.value, str):
                    sites.append((a, "arg"))
            if isinstance(root, ast.FunctionDef):  # get_init_inputs: constructor arguments
                sites += [(c, "init") for c in _list_constants(node)]
        if isinstance(root, ast.FunctionDef):
            for node in ast.walk(root):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.List | ast.Tuple):
                    sites += [(c, "init") for c in node.value.elts if isinstance(c, ast.Constant)]
    sites = [
        (c, k)
        for c, k in sites
        if isinstance(c.value, bool | int | float) or (k in STRING_CHOICES and c.value)
    ]
    if not sites:
        return None
    const, key = rng.choice(sites)
    old = const.value
    if isinstance(old, bool):
        new: object = not old
    elif isinstance(old, int):
        new = rng.choice(_int_choices(old, key in {"dim", "dims", "start_dim", "end_dim"}))
    elif isinstance(old, float):
        new = rng.choice(_float_choices(old))
    else:
        new = rng.choice([m for m in STRING_CHOICES[key] if m != old])
    const.value = new
    return f"change_attr: {key} {old!r} -> {new!r} (line {getattr(const, 'lineno', '?')})"


def _list_constants(call: ast.Call) -> list[ast.Constant]:
    return [
        e
        for a in call.args
        if isinstance(a, ast.List | ast.Tuple)
        for e in a.elts
        if isinstance(e, ast.Constant)
    ]


def _shape_constants(s: Sites) -> list[ast.Constant]:
    """Integer constants that are tensor dimensions in the code that builds the inputs."""
    out: list[ast.Constant] = []
    for root in s.input_scope:
        for node in ast.walk(root):
            if not isinstance(node, ast.Call):
                continue
            fn = dotted_name(node.func).rsplit(".", 1)[-1]
            if fn == "manual_seed":
                continue
            for a in node.args[:1] if fn not in CREATION_FNS else node.args:
                if isinstance(a, ast.Tuple | ast.List):
                    out += [e for e in a.elts if _is_int(e)]
                elif fn in CREATION_FNS and fn not in {"full", "arange"} and _is_int(a):
                    out.append(a)  # type: ignore[arg-type]
            for kw in node.keywords:
                if kw.arg == "size" and isinstance(kw.value, ast.Tuple | ast.List):
                    out += [e for e in kw.value.elts if _is_int(e)]
            if fn == "randint" and len(node.args) >= 3 and isinstance(node.args[2], ast.Tuple):
                out += [e for e in node.args[2].elts if _is_int(e)]
    return list({id(c): c for c in out}.values())


def _is_int(e: ast.AST) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int


def change_shape(s: Sites, rng: random.Random) -> str | None:
    """Resize an input dimension: one occurrence, or every matching size (model sizes too)."""
    dims = [c for c in _shape_constants(s) if c.value >= 1]
    if not dims:
        return None
    pick = rng.choice(dims)
    old = pick.value
    new = rng.choice(sorted({1, old + 1, max(1, old - 1), min(2 * old, 32), 7, 13} - {old}))
    if rng.random() < 0.6:
        targets = [c for c in dims if c.value == old]
        for root in [s.model] + ([s.init_inputs] if s.init_inputs else []):
            for node in ast.walk(root):
                if isinstance(node, ast.Call) and "manual_seed" not in dotted_name(node.func):
                    targets += [a for a in node.args if _is_int(a) and a.value == old]  # type: ignore[union-attr]
                    targets += _list_constants(node)
                if isinstance(node, ast.Return) and isinstance(node.value, ast.List | ast.Tuple):
                    targets += [e for e in node.value.elts if _is_int(e)]  # type: ignore[misc]
        targets = [t for t in targets if t.value == old]
        how = "every"
    else:
        targets = [pick]
        how = "one"
    for t in targets:
        t.value = new
    for root in s.input_scope:  # keep inputs small: refuse a mutant with a huge literal shape
        for node in ast.walk(root):
            if isinstance(node, ast.Tuple) and node.elts and all(_is_int(e) for e in node.elts):
                if math.prod(e.value for e in node.elts) > 200_000:  # type: ignore[attr-defined]
                    return None
    return f"change_shape: {how} size {old} -> {new} ({len(targets)} places)"


def change_dtype(s: Sites, rng: random.Random) -> str | None:
    """Change a dtype: an input's, a cast's, or cast an input or an intermediate."""
    dtype_nodes: list[ast.Attribute] = []
    casts: list[ast.Attribute] = []
    for root in [s.model, *s.input_scope]:
        for node in ast.walk(root):
            if isinstance(node, ast.Attribute) and dotted_name(node) in {
                f"torch.{d}" for d in FLOAT_DTYPES + INT_DTYPES
            }:
                dtype_nodes.append(node)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in CAST_METHODS and not node.args:
                    casts.append(node.func)
    kinds = ["insert"] + (["attr"] * 2 if dtype_nodes else []) + (["cast"] if casts else [])
    if s.input_list is not None and s.input_list.elts:
        kinds.append("input")
    kind = rng.choice(kinds)
    if kind == "attr":
        node = rng.choice(dtype_nodes)
        old = node.attr
        family = FLOAT_DTYPES if old in FLOAT_DTYPES else INT_DTYPES
        if rng.random() < 0.2:
            family = INT_DTYPES if family is FLOAT_DTYPES else FLOAT_DTYPES
        node.attr = rng.choice([d for d in family if d != old])
        return f"change_dtype: {old} -> {node.attr} (line {getattr(node, 'lineno', '?')})"
    if kind == "cast":
        func = rng.choice(casts)
        old = func.attr
        func.attr = rng.choice([m for m in CAST_METHODS if m != old])
        return f"change_dtype: .{old}() -> .{func.attr}()"
    new = rng.choice(FLOAT_DTYPES[1:])
    if kind == "input":
        assert s.input_list is not None
        i = rng.randrange(len(s.input_list.elts))
        el = s.input_list.elts[i]
        s.input_list.elts[i] = expr(f"({ast.unparse(el)}).to(torch.{new})")
        return f"change_dtype: input {i} -> {new}"
    anchor = pick_anchor(s, rng)
    if anchor is None:
        return None
    insert_after(anchor, "{v} = {v}.to(torch.{dtype})", dtype=new)
    return f"change_dtype: cast {anchor.name} to {new}"


def layout(s: Sites, rng: random.Random) -> str | None:
    """Non-contiguous or channels-last tensors: an input, an intermediate, or the whole model."""
    kinds = ["intermediate"]
    if s.input_list is not None and s.input_list.elts:
        kinds += ["input", "input"]
    src = ast.unparse(s.model)
    if s.init is not None and any(k in src for k in ("2d", "3d")):
        kinds.append("model")
    kind = rng.choice(kinds)
    helper = rng.choice(["ts_noncontig", "ts_channels_last"])
    if kind == "model":
        assert s.init is not None
        fmt = "channels_last" if "2d" in src else "channels_last_3d"
        s.init.body += stmts(f"self.to(memory_format=torch.{fmt})")
        return f"layout: model parameters to {fmt}"
    if kind == "input":
        assert s.input_list is not None
        i = rng.randrange(len(s.input_list.elts))
        el = s.input_list.elts[i]
        s.input_list.elts[i] = ast.Call(ast.Name(helper, ast.Load()), [el], [])
        ensure_helper(s.tree, helper)
        return f"layout: input {i} through {helper}"
    anchor = pick_anchor(s, rng)
    if anchor is None:
        return None
    insert_after(anchor, "{v} = {helper}({v})", helper=helper)
    ensure_helper(s.tree, helper)
    return f"layout: {anchor.name} through {helper}"


def insert_op(s: Sites, rng: random.Random) -> str | None:
    """Insert a shape-preserving op (or a binary op with an earlier variable) after a definition."""
    found = anchors(s)
    anchor = pick_anchor(s, rng)
    if anchor is None:
        return None
    earlier = [
        a.name
        for a in found
        if a.name != anchor.name and (a.body is not anchor.body or a.index <= anchor.index)
    ]
    if earlier and rng.random() < 0.25:
        tpl = rng.choice(BINARY_TEMPLATES)
        insert_after(anchor, tpl, w=rng.choice(earlier))
    else:
        tpl = rng.choice(INSERT_TEMPLATES)
        insert_after(anchor, tpl)
    return f"insert_op: {tpl.split(' = ', 1)[1].format(v=anchor.name, w='…')}"


def inplace(s: Sites, rng: random.Random) -> str | None:
    """Switch to in-place variants: ``x.relu_()``, ``inplace=True``, ``+=``, slice assignment."""
    cands: list[tuple[str, ast.AST]] = []
    for node, kind, name in op_calls(s):
        has_kw = any(k.arg == "inplace" for k in node.keywords)
        if kind in {"F", "nn"} and not has_kw:
            if kind == "F" and name in _F_INPLACE and node.args:
                cands.append(("kw", node))
            if kind == "nn" and name in _NN_INPLACE and not node.args:
                cands.append(("kw", node))
        elif kind == "torch" and name in INPLACE_NAMES and node.args:
            if available("method", name + "_"):
                cands.append(("torch", node))
        elif kind == "method" and name in INPLACE_NAMES and available("method", name + "_"):
            cands.append(("method", node))
    fwd_assigns = [a for a in anchors(s) if isinstance(a.value, ast.BinOp)]
    for a in fwd_assigns:
        assert isinstance(a.value, ast.BinOp)
        if isinstance(a.value.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
            cands.append(("augassign", a))  # type: ignore[arg-type]
    cands.append(("slice", None))  # type: ignore[arg-type]
    kind, node = rng.choice(cands)
    if kind == "kw":
        assert isinstance(node, ast.Call)
        node.keywords.append(ast.keyword("inplace", ast.Constant(True)))
        return f"inplace: {dotted_name(node.func)}(inplace=True)"
    if kind == "torch":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        first, rest = node.args[0], node.args[1:]
        node.func = ast.Attribute(first, node.func.attr + "_", ast.Load())
        node.args = rest
        return f"inplace: torch.{node.func.attr[:-1]}(x, ...) -> x.{node.func.attr}(...)"
    if kind == "method":
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        node.func.attr += "_"
        return f"inplace: .{node.func.attr[:-1]}() -> .{node.func.attr}()"
    if kind == "augassign":
        a: Anchor = node  # type: ignore[assignment]
        st = a.body[a.index - 1]
        assert isinstance(st, ast.Assign | ast.AugAssign) and isinstance(st.value, ast.BinOp)
        b = st.value
        left = ast.unparse(b.left)
        op = {"Add": "+=", "Sub": "-=", "Mult": "*=", "Div": "/="}[binop_name(b.op)]
        if rng.random() < 0.5:
            new = f"{a.name} = ({left}).clone()\n{a.name} {op} {ast.unparse(b.right)}"
        else:  # mutate the left operand itself when it is a plain name (an alias, on purpose)
            if not isinstance(b.left, ast.Name):
                return None
            new = f"{left} {op} {ast.unparse(b.right)}\n{a.name} = {left}"
        a.body[a.index - 1 : a.index] = stmts(new)
        return f"inplace: {a.name} via {op}"
    anchor = pick_anchor(s, rng)
    if anchor is None:
        return None
    code = rng.choice(
        [
            "{v}[..., :1] = 0",
            "{v} = {v}.clone()\n{v}[..., -1:] = {v}[..., :1] * 0.5",
            "{v}.mul_(0.5)",
            "{v} = {v}.clone()\n{v}.masked_fill_({v} > 0.5, 0.0)",
        ]
    )
    insert_after(anchor, code)
    return f"inplace: {code.splitlines()[-1].format(v=anchor.name)}"


@anchored
def layer_loop(s: Sites, rng: random.Random, anchor: Anchor) -> str | None:
    """A Python loop over layers: a ModuleList of shape-preserving layers, or a repeated line."""
    st = anchor.body[anchor.index - 1] if anchor.index > 0 else None
    self_map = (
        isinstance(st, ast.Assign)
        and anchor.value is not None
        and any(isinstance(n, ast.Name) and n.id == anchor.name for n in ast.walk(anchor.value))
    )
    if self_map and rng.random() < 0.35:
        assert st is not None
        i = fresh(s.tree, "ts_i")
        loop = stmts(f"for {i} in range(2):\n    pass")[0]
        assert isinstance(loop, ast.For)
        loop.body = [st]
        anchor.body[anchor.index - 1] = loop
        return f"layer_loop: line `{ast.unparse(st)[:60]}` run twice in a for loop"
    init = ensure_init(s)
    attr = fresh(s.tree, "ts_layers")
    layers = [rng.choice(LAYER_MODULES) for _ in range(rng.randint(2, 4))]
    init.body += stmts(f"self.{attr} = torch.nn.ModuleList([{', '.join(layers)}])")
    var = fresh(s.tree, "ts_layer")
    insert_after(anchor, "for {var} in self.{attr}:\n    {v} = {var}({v})", var=var, attr=attr)
    return f"layer_loop: {anchor.name} through {len(layers)} layers of a ModuleList"


@anchored
def containers(s: Sites, rng: random.Random, anchor: Anchor) -> str | None:
    """Route a tensor through Python lists, dicts and tuple unpacking."""
    box = fresh(s.tree, "ts_box")
    kind = ["list", "dict", "tuple", "dict+loop"][rng.randrange(4)]
    insert_after(anchor, CONTAINER_SNIPPETS[kind], b=box)
    return f"containers: {anchor.name} through a {kind}"


@anchored
def attr_mutation(s: Sites, rng: random.Random, anchor: Anchor) -> str | None:
    """Mutate module attributes in forward: an int counter, a plain tensor, a buffer."""
    init = ensure_init(s)
    name = fresh(s.tree, "ts_state")
    kind = rng.choice(["int", "tensor", "buffer"])
    if kind == "int":
        init.body += stmts(f"self.{name} = 0")
        code = f"self.{name} += 1\n{{v}} = {{v}} * self.{name}"
    elif kind == "tensor":
        init.body += stmts(f"self.{name} = torch.ones(())")
        code = f"self.{name} = self.{name} * 1.0\n{{v}} = {{v}} * self.{name}"
    else:
        init.body += stmts(f"self.register_buffer('{name}', torch.zeros(()))")
        code = f"self.{name}.add_(1)\n{{v}} = {{v}} * self.{name}"
    insert_after(anchor, code)
    return f"attr_mutation: {kind} attribute self.{name} updated in forward"


@anchored
def graph_break(s: Sites, rng: random.Random, anchor: Anchor) -> str | None:
    """Force a graph break: an explicit one, a data-dependent branch, or a Python scalar."""
    val = fresh(s.tree, "ts_val")
    kind = rng.choice(sorted(GRAPH_BREAK_SNIPPETS))
    insert_after(anchor, GRAPH_BREAK_SNIPPETS[kind], n=val)
    return f"graph_break: {kind} after {anchor.name}"


MUTATORS: dict[str, Callable[[Sites, random.Random], str | None]] = {
    "swap_op": swap_op,
    "change_attr": change_attr,
    "change_shape": change_shape,
    "change_dtype": change_dtype,
    "layout": layout,
    "insert_op": insert_op,
    "inplace": inplace,
    "layer_loop": layer_loop,
    "containers": containers,
    "attr_mutation": attr_mutation,
    "graph_break": graph_break,
    "keywords": keywords,
}

#: How often each operator is drawn (the Dynamo constructs are cheap to make valid).
WEIGHTS: dict[str, float] = {
    "swap_op": 3.0,
    "change_attr": 2.0,
    "change_shape": 2.0,
    "change_dtype": 1.5,
    "layout": 1.5,
    "insert_op": 2.0,
    "inplace": 1.5,
    "layer_loop": 1.0,
    "containers": 1.0,
    "attr_mutation": 1.0,
    "graph_break": 1.0,
    "keywords": 1.0,
}
