"""Passes for function programs (``fn`` + ``get_inputs``/``get_calls``/``before_call``).

The forward passes (:mod:`~torchsmith.reduce.passes.forward`) already work on ``fn``'s body
(:attr:`~torchsmith.reduce.source.View.forward` is the function itself); these add what only a
function program has:

* :func:`drop_calls`: fewer calls in ``get_calls()``: one call alone (earliest first), then
  each call dropped; ``before_call``'s ``if i == k:`` blocks follow (a dropped call's block
  runs before the next call, later ones renumbered) so the state each kept call sees is kept;
* :func:`drop_args`: an argument ``fn`` no longer reads, from every call;
* :func:`inline_helpers`: ``y = h(a)`` in ``fn``, with ``h`` a module-level function whose body
  is assignments and one final return, becomes ``h``'s statements (locals renamed);
* :func:`shrink_helpers`: the bodies of the functions ``fn`` calls but that cannot be inlined
  (a ``nested_compile_region``, a ``cond`` branch, a ``scan`` body, a ``vmap``-ed function):
  each returns an earlier value instead (the statements after it dropped), or loses one
  statement, or has an op call replaced by its operand or the product of two operands;
  module-level helpers and functions defined inside ``fn`` alike;
* :func:`drop_module`: module-level statements (helpers, globals, classes, imports) and
  statements of ``get_inputs``/``get_calls``/``get_kwargs``, one at a time, last first;
* :func:`drop_settings`: keys of ``compile_kwargs``, ``compile_config`` and ``check_options``
  (``dynamic`` stays only if the failure needs it);
* :func:`simplify_args`: input shapes to 1 or half, float scalars to 0.0 / 1.0 and ints to
  0 / 1 (a scalar stays a scalar of its type, a tensor a tensor), non-float32 dtypes to
  float32, layout changes (``.t()``, ``.mT``, ``.permute(...)``, channels-last) dropped.

Pure source-to-source, like every pass; the driver's strict test decides.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator

from torchsmith.program.format import CHECK_OPTIONS, COMPILE_CONFIG, COMPILE_KWARGS, dotted_name
from torchsmith.program.ops import input_helpers
from torchsmith.reduce.passes.base import Candidate, Context
from torchsmith.reduce.source import ODD_DTYPES, Swap, View, dce, loads, stores, unparse

INPUT_FUNCTIONS = ("get_inputs", "get_calls", "get_kwargs")
PROTOCOL = {"get_inputs", "get_calls", "get_kwargs", "before_call", "get_init_inputs"}
_SETTINGS = (COMPILE_KWARGS, COMPILE_CONFIG, CHECK_OPTIONS)
_FACTORIES = {"randn", "rand", "zeros", "ones", "empty", "full", "randint", "arange", "tensor"}
_LAYOUT_METHODS = {"t", "permute", "transpose", "contiguous", "as_strided", "expand"}
_LAYOUT_ATTRS = {"mT", "T", "mH", "H"}


# -- calls ---------------------------------------------------------------------------------------
def call_lists(v: View) -> list[ast.List] | None:
    """The argument list literal of each call, in call order: ``get_inputs``'s returned list,
    or for ``get_calls`` each element of the returned list (a literal, or a name bound to one
    in its body). None when they are built some other way."""
    if v.function("get_calls") is None:
        lst = v.inputs_list()
        return [lst] if isinstance(lst, ast.List) else None
    fn = v.function("get_calls")
    assert fn is not None
    rets = [s for s in fn.body if isinstance(s, ast.Return)]
    if rets and isinstance(rets[-1].value, ast.Name):  # calls = []; calls.append([...])
        appended = _appends(fn, rets[-1].value.id)
        return [a.value.args[0] for a in appended] if appended else None  # type: ignore[attr-defined]
    if not rets or not isinstance(rets[-1].value, ast.List):
        return None
    bound = {
        s.targets[0].id: s.value
        for s in fn.body
        if isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.List)
    }
    out: list[ast.List] = []
    for e in rets[-1].value.elts:
        if isinstance(e, ast.List):
            out.append(e)
        elif isinstance(e, ast.Name) and e.id in bound:
            out.append(bound[e.id])  # type: ignore[arg-type]
        else:
            return None
    return out


def _appends(fn: ast.FunctionDef, name: str) -> list[ast.Expr] | None:
    """The ``name.append([...])`` statements of ``fn``'s body, when that is how the list of
    calls is built (``name = []`` first); None otherwise."""
    out: list[ast.Expr] = []
    for s in fn.body:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            f = s.value.func
            if isinstance(f, ast.Attribute) and dotted_name(f.value) == name:
                if f.attr != "append" or len(s.value.args) != 1:
                    return None
                if not isinstance(s.value.args[0], ast.List):
                    return None
                out.append(s)
    return out or None


def _blocks(v: View) -> dict[int, ast.If] | None:
    """``before_call``'s ``if i == k:`` blocks by ``k`` (None: absent or another shape)."""
    bc = v.function("before_call")
    if bc is None:
        return None
    out: dict[int, ast.If] = {}
    for s in bc.body:
        if isinstance(s, ast.Global):
            continue
        if (
            isinstance(s, ast.If)
            and not s.orelse
            and isinstance(s.test, ast.Compare)
            and ast.unparse(s.test.left) == "i"
            and isinstance(s.test.ops[0], ast.Eq)
            and isinstance(s.test.comparators[0], ast.Constant)
        ):
            out[int(s.test.comparators[0].value)] = s
        else:
            return None
    return out


def _keep_calls(v: View, keep: list[int]) -> bool:
    """Keep only the calls ``keep`` (sorted); merge and renumber ``before_call`` blocks."""
    fn = v.function("get_calls")
    if fn is None:
        return False
    ret = fn.body[-1]
    blocks = _blocks(v)
    bc = v.function("before_call")
    if bc is not None and blocks is None and keep != list(range(len(keep))):
        return False  # before_call depends on i some other way: only a prefix keeps its state
    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name):
        appended = _appends(fn, ret.value.id) or []
        n = len(appended)
        drop = [a for k, a in enumerate(appended) if k not in keep]
        fn.body = [s for s in fn.body if not any(s is d for d in drop)]
    else:
        assert isinstance(ret, ast.Return) and isinstance(ret.value, ast.List)
        n = len(ret.value.elts)
        ret.value.elts = [ret.value.elts[k] for k in keep]
    if blocks is not None and bc is not None:
        new: list[ast.stmt] = [s for s in bc.body if isinstance(s, ast.Global)]
        pending: list[ast.stmt] = []
        for k in range(n):
            if k in blocks:
                pending += blocks[k].body
            if k in keep and pending:
                test = ast.parse(f"i == {keep.index(k)}", mode="eval").body
                new.append(ast.If(test, pending, []))
                pending = []
        bc.body = new or [ast.Pass()]
        if not any(isinstance(s, ast.If) for s in bc.body):
            v.tree.body.remove(bc)
    fn.body = dce(fn.body)
    return True


def drop_calls(ctx: Context) -> Iterator[Candidate]:
    lists = call_lists(ctx.view())
    if lists is None or ctx.view().function("get_calls") is None or len(lists) < 2:
        return
    n = len(lists)
    options = [[k] for k in range(n)] + [[j for j in range(n) if j != k] for k in range(n)]
    for keep in options:
        v = ctx.view()
        if _keep_calls(v, keep):
            yield f"keep calls {keep}", unparse(v.tree)


def one_call_as_inputs(ctx: Context) -> Iterator[Candidate]:
    """A ``get_calls`` left with one call (and no ``before_call``) becomes ``get_inputs``."""
    v = ctx.view()
    fn, lists = v.function("get_calls"), call_lists(v)
    if fn is None or lists is None or len(lists) != 1 or v.function("before_call") is not None:
        return
    ret = fn.body[-1]
    assert isinstance(ret, ast.Return)
    ret.value = lists[0]
    fn.body = [s for s in fn.body if not _appends_stmt(s)]
    fn.body = dce([s for s in fn.body if not (isinstance(s, ast.Assign) and s.value is lists[0])])
    fn.name = "get_inputs"
    v.tree.body = [
        s for s in v.tree.body if not (s is not fn and getattr(s, "name", None) == "get_inputs")
    ]
    yield "one call: get_inputs", unparse(v.tree)


def _appends_stmt(s: ast.stmt) -> bool:
    return (
        isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "append"
    )


def drop_args(ctx: Context) -> Iterator[Candidate]:
    """Drop an argument ``fn`` does not read (or any argument: the test decides), everywhere."""
    v0 = ctx.view()
    fn, lists = v0.forward, call_lists(v0)
    params = v0.forward_params()
    if fn is None or lists is None or params is None or not v0.is_function:
        return
    if any(len(lst.elts) != len(params) for lst in lists):
        return
    used = set().union(*(loads(s) for s in fn.body))
    order = [i for i, p in enumerate(params) if p.arg not in used]
    order += [i for i in range(len(params)) if i not in order]
    for i in order:
        v = ctx.view()
        f, ls = v.forward, call_lists(v)
        assert f is not None and ls is not None
        name = f.args.args[i].arg
        del f.args.args[i]
        for lst in ls:
            del lst.elts[i]
        for name_fn in INPUT_FUNCTIONS:
            g = v.function(name_fn)
            if g is not None:
                g.body = dce(g.body)
        yield f"drop argument {name}", unparse(v.tree)


# -- helpers and module level -------------------------------------------------------------------
def _inlinable(f: ast.FunctionDef) -> bool:
    a = f.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or f.decorator_list:
        return False
    body = f.body
    return (
        bool(body)
        and isinstance(body[-1], ast.Return)
        and body[-1].value is not None
        and all(isinstance(s, ast.Assign) for s in body[:-1])
    )


def inline_helpers(ctx: Context) -> Iterator[Candidate]:
    v0 = ctx.view()
    fn = v0.forward
    if fn is None or not v0.is_function:
        return
    helpers = {
        s.name: s
        for s in v0.tree.body
        if isinstance(s, ast.FunctionDef) and s.name not in PROTOCOL and s is not fn
    }
    for i, stmt in enumerate(fn.body):
        if not isinstance(stmt, ast.Assign | ast.Return) or stmt.value is None:
            continue
        for call in [n for n in ast.walk(stmt.value) if isinstance(n, ast.Call)]:
            h = helpers.get(dotted_name(call.func))
            if (
                h is None
                or not _inlinable(h)
                or call.keywords
                or len(call.args) != len(h.args.args)
            ):
                continue
            v = ctx.view()
            f = v.forward
            assert f is not None
            target = f.body[i]
            prefix = f"{h.name}_"
            local = {p.arg for p in h.args.args} | set().union(*(stores(s) for s in h.body))
            rename = {n: prefix + n for n in local}
            body = [copy.deepcopy(s) for s in h.body]
            new: list[ast.stmt] = [
                ast.Assign([ast.Name(prefix + p.arg, ast.Store())], copy.deepcopy(a))
                for p, a in zip(h.args.args, call.args)
            ]
            for s in body:
                new.append(_Rename(rename).visit(s))
            ret = new.pop()
            assert isinstance(ret, ast.Return) and ret.value is not None
            text = ast.dump(call)
            target = _ReplaceCall(text, ret.value).visit(target)
            f.body[i : i + 1] = [*new, target]
            rest = [s for s in v.tree.body if getattr(s, "name", None) != h.name]
            if h.name not in set().union(*(loads(s) for s in rest)):
                v.tree.body = rest  # its only use is gone: so is the helper
            yield f"inline {h.name}", unparse(v.tree)
            return


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(self.mapping[node.id], node.ctx), node)
        return node


class _ReplaceCall(ast.NodeTransformer):
    def __init__(self, dump: str, new: ast.expr) -> None:
        self.dump, self.new, self.done = dump, new, False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not self.done and ast.dump(node) == self.dump:
            self.done = True
            return copy.deepcopy(self.new)
        return self.generic_visit(node)


def drop_module(ctx: Context) -> Iterator[Candidate]:
    """Module-level statements other than the target, the protocol and imports, then statements
    of the input functions, each alone, last first (the driver skips those that leave a name
    undefined without a job)."""
    v0 = ctx.view()
    if not v0.is_function:
        return
    target = v0.model_name
    for i in reversed(range(len(v0.tree.body))):
        s = v0.tree.body[i]
        name = getattr(s, "name", None)
        if name in PROTOCOL or name == target:
            continue
        if isinstance(s, ast.Assign) and stores(s) & set(_SETTINGS):
            continue
        if isinstance(s, ast.Import | ast.ImportFrom):
            # an import's side effects (ops it registers: torch.ao's quantized_decomposed)
            # outlive it in the long-lived worker, so a candidate without it passes there and
            # fails standalone, and the reduction steps back to the start
            continue
        v = ctx.view()
        del v.tree.body[i]
        yield f"drop module statement {i}", unparse(v.tree)
    for fname in INPUT_FUNCTIONS:
        g = v0.function(fname)
        if g is None:
            continue
        for j in reversed(range(len(g.body) - 1)):
            v = ctx.view()
            g2 = v.function(fname)
            assert g2 is not None
            del g2.body[j]
            yield f"drop {fname} statement {j}", unparse(v.tree)
    yield from _drop_in_before_call(ctx)


def _bodies(fn: ast.FunctionDef) -> list[list[ast.stmt]]:
    """``fn``'s statement lists: its body and the bodies of its ``if`` blocks."""
    out = [fn.body]
    out += [n.body for n in ast.walk(fn) if isinstance(n, ast.If)]
    return out


def _drop_in_before_call(ctx: Context) -> Iterator[Candidate]:
    bc = ctx.view().function("before_call")
    if bc is None:
        return
    for bi, body in enumerate(_bodies(bc)):
        for j in reversed(range(len(body))):
            if isinstance(body[j], ast.Global):
                continue
            v = ctx.view()
            bc2 = v.function("before_call")
            assert bc2 is not None
            del _bodies(bc2)[bi][j]
            for b in _bodies(bc2):
                if not b:
                    b.append(ast.Pass())
            yield f"drop before_call statement {bi}.{j}", unparse(v.tree)


def _settings(v: View) -> list[tuple[int, ast.Dict]]:
    out = []
    for i, s in enumerate(v.tree.body):
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Dict) and len(s.targets) == 1:
            t = s.targets[0]
            if isinstance(t, ast.Name) and t.id in _SETTINGS:
                out.append((i, s.value))
    return out


def drop_settings(ctx: Context) -> Iterator[Candidate]:
    """Each key of the declared settings alone, then whole empty dicts."""
    for si, (_, d) in enumerate(_settings(ctx.view())):
        for k in range(len(d.keys)):
            v = ctx.view()
            i, d2 = _settings(v)[si]
            key = ast.unparse(d2.keys[k]) if d2.keys[k] is not None else "**"
            del d2.keys[k], d2.values[k]
            if not d2.keys:
                del v.tree.body[i]
            yield f"drop setting {key}", unparse(v.tree)


# -- arguments -----------------------------------------------------------------------------------
def _input_nodes(v: View) -> list[ast.AST]:
    return [g for name in INPUT_FUNCTIONS if (g := v.function(name)) is not None]


def _shape_ints(v: View) -> list[ast.Constant]:
    """Integer literals sizing tensors built in the input functions."""
    out: list[ast.Constant] = []
    for g in _input_nodes(v):
        for n in ast.walk(g):
            if not isinstance(n, ast.Call) or dotted_name(n.func).split(".")[-1] not in _FACTORIES:
                continue
            if dotted_name(n.func).endswith(("tensor", "full")) and not n.args:
                continue
            args = n.args
            if dotted_name(n.func).endswith("randint"):
                args = [a for a in n.args if isinstance(a, ast.Tuple | ast.List)]
            elif dotted_name(n.func).endswith("full"):
                args = n.args[:1]
            elif dotted_name(n.func).endswith("tensor"):
                continue
            for a in args:
                elts = a.elts if isinstance(a, ast.Tuple | ast.List) else [a]
                out += [
                    e
                    for e in elts
                    if isinstance(e, ast.Constant) and type(e.value) is int and e.value > 1
                ]
    return out


def _scalars(v: View) -> list[ast.Constant]:
    """Python scalars passed directly as call arguments (floats and ints, not bools)."""
    lists = call_lists(v) or []
    return [
        e
        for lst in lists
        for e in lst.elts
        if isinstance(e, ast.Constant) and type(e.value) in (int, float)
    ]


def _layout_sites(v: View) -> list[tuple[ast.AST, str, ast.expr]]:
    """``(parent, field, inner)`` for layout changes in the input functions: ``x.t()``,
    ``x.mT``, ``x.permute(...)``, ``.contiguous(memory_format=...)``, ``.to(memory_format=)``."""
    out: list[tuple[ast.AST, str, ast.expr]] = []
    for g in _input_nodes(v):
        for parent in ast.walk(g):
            for field, value in ast.iter_fields(parent):
                if not isinstance(value, ast.expr):
                    continue
                inner = _layout_inner(value)
                if inner is not None:
                    out.append((parent, field, inner))
    return out


def _layout_inner(e: ast.expr) -> ast.expr | None:
    if isinstance(e, ast.Attribute) and e.attr in _LAYOUT_ATTRS:
        return e.value
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        m = e.func.attr
        if m in _LAYOUT_METHODS:
            return e.func.value
        if m == "to" and any(k.arg == "memory_format" for k in e.keywords) and not e.args:
            return e.func.value
    return None


def simplify_args(ctx: Context) -> Iterator[Candidate]:
    n = len(_layout_sites(ctx.view()))
    for i in range(n):
        v = ctx.view()
        parent, field, inner = _layout_sites(v)[i]
        setattr(parent, field, inner)
        yield f"input layout {i}: contiguous", unparse(v.tree)
    ints = _shape_ints(ctx.view())
    for value in sorted({c.value for c in ints}, reverse=True):  # a size shared by inputs
        if sum(c.value == value for c in ints) < 2:
            continue
        for new in sorted({1, value // 2} - {value}):
            v = ctx.view()
            for c in _shape_ints(v):
                if c.value == value:
                    c.value = new
            yield f"every input size {value} -> {new}", unparse(v.tree)
    for i, c in enumerate(ints):
        for new in sorted({1, c.value // 2} - {c.value}):
            v = ctx.view()
            _shape_ints(v)[i].value = new
            yield f"input size {i}: {c.value} -> {new}", unparse(v.tree)
    for i, c in enumerate(_scalars(ctx.view())):
        simpler = [0.0, 1.0] if type(c.value) is float else [0, 1]
        for new in simpler:
            if new == c.value:
                continue
            v = ctx.view()
            _scalars(v)[i].value = new
            yield f"scalar argument {i}: {c.value!r} -> {new!r}", unparse(v.tree)
    sites = [
        n
        for g in _input_nodes(ctx.view())
        for n in ast.walk(g)
        if isinstance(n, ast.Attribute) and n.attr in ODD_DTYPES and dotted_name(n.value) == "torch"
    ]
    for i in range(len(sites)):
        v = ctx.view()
        site = [
            n
            for g in _input_nodes(v)
            for n in ast.walk(g)
            if isinstance(n, ast.Attribute)
            and n.attr in ODD_DTYPES
            and dotted_name(n.value) == "torch"
        ][i]
        old, site.attr = site.attr, "float32"
        yield f"input dtype {i}: {old} -> float32", unparse(v.tree)


def _helpers(v: View) -> list[ast.FunctionDef]:
    """Functions whose bodies :func:`shrink_helpers` shrinks: module-level ones other than the
    entry and the protocol's, and those defined directly inside the entry function."""
    entry = v.forward
    inputs_only = input_helpers(v.tree)  # ``_rand``: only the protocol's functions call it
    out = [
        n
        for n in v.tree.body
        if isinstance(n, ast.FunctionDef)
        and n.name not in PROTOCOL
        and n is not entry
        and n.name not in inputs_only
    ]
    if entry is not None:
        out += [n for n in entry.body if isinstance(n, ast.FunctionDef)]
    return out


def shrink_helpers(ctx: Context) -> Iterator[Candidate]:
    """Helper bodies shrink: ``return <an earlier local>`` (the statements after it dropped),
    latest value first; then each statement dropped alone. Candidates that break a name fail
    in eager and are refused by the driver's strict test."""
    count = len(_helpers(ctx.view()))
    for k in range(count):
        body = _helpers(ctx.view())[k].body
        if len(body) < 2 or not isinstance(body[-1], ast.Return):
            continue
        for i in reversed(range(len(body) - 1)):
            stmt = body[i]
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            target = stmt.targets[0]
            if not isinstance(target, ast.Name):
                continue
            v = ctx.view()
            fn = _helpers(v)[k]
            fn.body = [*fn.body[: i + 1], ast.Return(value=ast.Name(id=target.id, ctx=ast.Load()))]
            yield f"helper {fn.name}: return {target.id}", unparse(v.tree)
        for i in range(len(body) - 1):
            v = ctx.view()
            fn = _helpers(v)[k]
            del fn.body[i]
            yield f"helper {fn.name}: drop statement {i}", unparse(v.tree)
        for i in range(len(body)):
            stmt = body[i]
            if not isinstance(stmt, ast.Assign | ast.Return) or stmt.value is None:
                continue
            calls = [n for n in ast.walk(stmt.value) if isinstance(n, ast.Call)]
            for c in range(len(calls)):
                for j in range(len(_simpler_calls(calls[c]))):
                    v = ctx.view()
                    fn = _helpers(v)[k]
                    value = fn.body[i].value  # type: ignore[attr-defined]
                    target = [n for n in ast.walk(value) if isinstance(n, ast.Call)][c]
                    simpler = _simpler_calls(target)[j]
                    fn.body[i].value = Swap(target, simpler).visit(value)  # type: ignore[attr-defined]
                    yield f"helper {fn.name}: simpler call {i}.{c}.{j}", unparse(v.tree)


_MODULES = {"torch", "F", "nn", "math", "np", "operator"}


def _simpler_calls(call: ast.Call) -> list[ast.expr]:
    """What an op call in a helper may become: its tensor operand alone (``torch.sin(a)``,
    ``a.abs()`` -> ``a``), or the product of its first two operands (``torch.atan2(a, b)`` ->
    ``a * b``: both inputs still flow)."""
    operands = list(call.args)
    module = dotted_name(call.func).split(".")[0]
    if isinstance(call.func, ast.Attribute) and module not in _MODULES:
        operands.insert(0, call.func.value)  # a method call: the tensor it is called on
    operands = [a for a in operands if not isinstance(a, ast.Constant | ast.Starred)]
    out: list[ast.expr] = [copy.deepcopy(operands[0])] if operands else []
    if len(operands) >= 2:
        pair = [copy.deepcopy(o) for o in operands[:2]]
        out.append(ast.BinOp(left=pair[0], op=ast.Mult(), right=pair[1]))
    return out
