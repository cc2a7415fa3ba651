"""Shrink passes: smaller layers, smaller and lower-rank inputs, plainer dtypes.

* :func:`shrink_layers`: integer arguments of ``nn.*`` constructors (channels, kernel sizes,
  strides, groups, features) to 1 or to half, ``bias=True`` and friends to False, and elements of
  an ``nn.Sequential`` dropped;
* :func:`shrink_shapes`: every occurrence of one integer value at once across ``__init__``,
  ``get_init_inputs`` and ``get_inputs`` (a channel count shared by a layer and an input moves
  together), then each dimension of each input shape alone, then dimensions dropped (rank);
* :func:`simplify_dtypes`: float16, bfloat16 and float64 mentions to float32.

Most of these candidates break the program (shapes no longer agree): the eager run rejects them
as ``invalid`` in milliseconds, before anything is compiled.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchsmith.program.format import dotted_name
from torchsmith.reduce.passes.base import Candidate, Context
from torchsmith.reduce.source import ODD_DTYPES, View, unparse

#: Keyword arguments that name dimensions or seeds, never sizes: left alone.
_NOT_SIZES = {"dim", "dims", "axis", "start_dim", "end_dim", "dim0", "dim1", "seed", "diagonal"}
_FLAGS = {"bias", "affine", "track_running_stats", "elementwise_affine", "batch_first"}


def _is_nn_call(node: ast.Call) -> bool:
    name = dotted_name(node.func)
    return name.startswith(("nn.", "torch.nn.")) and name.split(".")[-1][:1].isupper()


def _ints_in(node: ast.AST) -> list[ast.Constant]:
    """Integer literals (not bools) under ``node``, skipping seeds and dimension keywords."""
    out: list[ast.Constant] = []

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Call) and dotted_name(n.func).endswith("manual_seed"):
            return
        if isinstance(n, ast.keyword) and n.arg in _NOT_SIZES:
            return
        if isinstance(n, ast.Constant) and type(n.value) is int:
            out.append(n)
            return
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return  # negative bounds stay
        for child in ast.iter_child_nodes(n):
            walk(child)

    walk(node)
    return out


def _layer_calls(v: View) -> list[ast.Call]:
    calls: list[ast.Call] = []
    for cls in [n for n in v.tree.body if isinstance(n, ast.ClassDef)]:
        init = v.method("__init__", cls)
        if init is not None:
            calls += [n for n in ast.walk(init) if isinstance(n, ast.Call) and _is_nn_call(n)]
    return calls


def _size_sites(v: View) -> list[ast.Constant]:
    """Integer literals that size things: layer constructors and parameter shapes in
    ``__init__``, ``get_init_inputs`` and ``get_inputs``."""
    sites: list[ast.Constant] = []
    for cls in [n for n in v.tree.body if isinstance(n, ast.ClassDef)]:
        init = v.method("__init__", cls)
        if init is not None:
            sites += _ints_in(init)
    for name in ("get_init_inputs", "get_inputs"):
        fn = v.function(name)
        if fn is not None:
            sites += _ints_in(fn)
    return sites


def _smaller(value: int) -> list[int]:
    out = [1] if value > 1 else []
    if value // 2 > 1:
        out.append(value // 2)
    return out


def shrink_layers(ctx: Context) -> Iterator[Candidate]:
    n_calls = len(_layer_calls(ctx.view()))
    for ci in range(n_calls):
        call = _layer_calls(ctx.view())[ci]
        name = dotted_name(call.func).split(".")[-1]
        # nn.Sequential: drop one element at a time.
        if name == "Sequential" and len(call.args) > 1:
            for j in range(len(call.args)):
                v = ctx.view()
                c = _layer_calls(v)[ci]
                del c.args[j]
                yield f"drop element {j} of nn.Sequential", unparse(v.tree)
            continue
        for k in range(len(call.keywords)):
            kw = call.keywords[k]
            if kw.arg in _FLAGS and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                v = ctx.view()
                _layer_calls(v)[ci].keywords[k].value = ast.Constant(False)
                yield f"{name}({kw.arg}=False)", unparse(v.tree)
        for si in range(len(_ints_in(call))):
            site = _ints_in(call)[si]
            for new in _smaller(site.value):
                v = ctx.view()
                _ints_in(_layer_calls(v)[ci])[si].value = new
                yield f"{name}: {site.value} -> {new}", unparse(v.tree)


_SHAPE_VARARGS = {"randn", "rand", "zeros", "ones", "empty"}


def _input_shapes(v: View) -> list[list[ast.expr]]:
    """Shape literals in get_inputs, as the AST lists holding their dimensions: tuples or lists
    of integers, and the integer arguments of ``torch.randn(4, 8)`` and its siblings."""
    fn = v.get_inputs
    if fn is None:
        return []
    out: list[list[ast.expr]] = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Tuple | ast.List) and n.elts and all(_is_int(e) for e in n.elts):
            out.append(n.elts)
        elif (
            isinstance(n, ast.Call)
            and dotted_name(n.func).split(".")[-1] in _SHAPE_VARARGS
            and n.args
            and all(_is_int(e) for e in n.args)
        ):
            out.append(n.args)
    return out


def _is_int(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int


def shrink_shapes(ctx: Context) -> Iterator[Candidate]:
    values = sorted({c.value for c in _size_sites(ctx.view()) if c.value > 1}, reverse=True)
    for value in values:
        for new in _smaller(value):
            v = ctx.view()
            for c in _size_sites(v):
                if c.value == value:
                    c.value = new
            yield f"every {value} -> {new}", unparse(v.tree)
    shapes = _input_shapes(ctx.view())
    for si, shape in enumerate(shapes):
        for di, dim in enumerate(shape):
            assert isinstance(dim, ast.Constant)
            for new in _smaller(dim.value):
                v = ctx.view()
                target = _input_shapes(v)[si][di]
                assert isinstance(target, ast.Constant)
                target.value = new
                yield f"input shape {si} dim {di}: {dim.value} -> {new}", unparse(v.tree)
    for si, shape in enumerate(shapes):
        if len(shape) < 2:
            continue
        for di in range(len(shape)):
            v = ctx.view()
            del _input_shapes(v)[si][di]
            yield f"input shape {si}: drop dim {di}", unparse(v.tree)


def _dtype_sites(v: View) -> list[ast.Attribute]:
    return [
        n
        for n in ast.walk(v.tree)
        if isinstance(n, ast.Attribute)
        and n.attr in ODD_DTYPES
        and isinstance(n.value, ast.Name)
        and n.value.id == "torch"
    ]


def simplify_dtypes(ctx: Context) -> Iterator[Candidate]:
    n = len(_dtype_sites(ctx.view()))
    if n > 1:
        v = ctx.view()
        for site in _dtype_sites(v):
            site.attr = "float32"
        yield "every float dtype -> float32", unparse(v.tree)
    for i in range(n):
        v = ctx.view()
        site = _dtype_sites(v)[i]
        old, site.attr = site.attr, "float32"
        yield f"dtype {i}: {old} -> float32", unparse(v.tree)
