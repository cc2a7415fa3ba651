"""Find the model a repro script tests and the call that runs it (rule 2 of
:mod:`torchsmith.program.foreign`), from the flattened module-level statements alone."""

from __future__ import annotations

import ast
import copy
import dataclasses

from torchsmith.program import foreign_ast as fa
from torchsmith.program.format import ProgramFormatError, dotted_name

#: Module methods that return the module itself (the model stays the model through them).
MODULE_METHODS = {"eval", "train", "cuda", "cpu", "to", "double", "half", "float", "bfloat16"}
MODULE_METHODS |= {"requires_grad_", "share_memory", "xpu"}
_INPUT_LISTS = ("inputs", "example_inputs")


@dataclasses.dataclass
class Construction:
    """One ``C(...)`` call of a local nn.Module class at module level."""

    call: ast.Call
    cls: str
    index: int  # flat statement index
    var: str | None = None  # the first variable it was bound to
    chain: list[ast.Call] = dataclasses.field(default_factory=list)  # module methods applied
    compiled: bool = False


@dataclasses.dataclass
class Use:
    """The call that runs the model: its args and keywords are the forward inputs."""

    ctor: Construction
    call: ast.Call
    index: int  # flat index of the statement that runs the model
    how: str  # for notes and messages


_Ref = tuple[Construction, list[ast.Call]]


class ModelFinder:
    def __init__(self, flat: list[ast.stmt], classes: list[str], where: str) -> None:
        self.flat, self.classes, self.where = flat, classes, where
        self.defs = {s.name: s for s in flat if isinstance(s, fa.DEFS)}
        self.env = fa.assignments(flat)
        self.ctors: dict[int, Construction] = {}
        self.uses: list[Use] = []
        self.others: list[Use] = []
        self.failures: list[ProgramFormatError] = []

    def fail(self, msg: str, node: ast.AST | None = None) -> ProgramFormatError:
        return fa.error(self.where, msg, node)

    def find(self) -> Use:
        """The first call that runs a construction, or the module-level ``inputs`` list."""
        self._scan()
        if self.uses or self.others:
            return (self.uses or self.others)[0]
        ctors = list(self.ctors.values())
        lists = [
            (i, s)
            for i, s in enumerate(self.flat)
            if isinstance(s, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id in _INPUT_LISTS for t in s.targets)
        ]
        if self.failures and not lists:
            raise self.failures[0]
        if not ctors:
            cls = self._root_class()
            if cls is None or not lists:
                raise self.fail(
                    f"found class {' and '.join(self.classes)} but no statement constructs it and"
                    " no call passes it inputs: add `inputs = [...]` or `get_inputs()`"
                )
            call = ast.Call(func=ast.Name(cls, ast.Load()), args=[], keywords=[])
            ctors = [Construction(ast.copy_location(call, lists[-1][1]), cls, lists[-1][0])]
        ctor = next((c for c in ctors if c.compiled), ctors[-1])
        if not lists:
            raise self.fail(
                f"model `{ctor.var or ctor.cls}` (class {ctor.cls}) is constructed at line"
                f" {ctor.call.lineno} but never called with inputs, passed to a helper with them,"
                " nor is there a module-level `inputs = [...]`: add `inputs = [...]` or"
                " `get_inputs()`"
            )
        i, stmt = lists[-1]
        name = next(t.id for t in stmt.targets if isinstance(t, ast.Name))
        star = ast.Starred(value=ast.Name(name, ast.Load()), ctx=ast.Load())
        func = ast.Name(ctor.var or ctor.cls, ast.Load())
        call = ast.copy_location(ast.Call(func=func, args=[star], keywords=[]), stmt)
        return Use(ctor, call, i + 1, f"module-level `{name}`")

    def _root_class(self) -> str | None:
        """With no construction: ``Model``, or the one class no other class uses."""
        if "Model" in self.classes:
            return "Model"
        used = set().union(*(fa.uses(self.defs[c]) for c in self.classes))
        roots = [c for c in self.classes if c not in used]
        return roots[0] if len(roots) == 1 else None

    # -- tracking the model through variables ------------------------------------------------

    def _ref(self, e: ast.AST, aliases: dict[str, Construction]) -> _Ref | None:
        """The construction ``e`` evaluates to if it is the model, and the module methods
        applied on the way, in order."""
        chain: list[ast.Call] = []
        while True:
            if isinstance(e, ast.Name):
                target = aliases.get(e.id)
                return (target, chain[::-1]) if target is not None else None
            if not isinstance(e, ast.Call):
                return None
            if id(e) in self.ctors:
                return self.ctors[id(e)], chain[::-1]
            if isinstance(e.func, ast.Attribute) and e.func.attr in MODULE_METHODS:
                chain.append(e)
                e = e.func.value
            elif (unwrapped := fa.unwrap_compile(e)) is not None:
                e = unwrapped
            else:
                return None

    def _function(
        self, e: ast.AST, functions: dict[str, ast.FunctionDef]
    ) -> ast.FunctionDef | None:
        """The local function ``e`` evaluates to: ``f``, ``torch.compile(f)``, an alias of those."""
        while (unwrapped := fa.unwrap_compile(e)) is not None:
            e = unwrapped
        return functions.get(e.id) if isinstance(e, ast.Name) else None

    def _called(self, call: ast.Call, aliases: dict[str, Construction]) -> Construction | None:
        """The model ``call`` runs directly (``m(x)``, ``m.forward(x)``), if any."""
        f = call.func
        r = self._ref(f, aliases)
        if r is None and isinstance(f, ast.Attribute) and f.attr == "forward":
            r = self._ref(f.value, aliases)
        if r is None:
            return None
        r[0].chain += r[1]
        return r[0]

    def _track(self, stmt: ast.stmt, aliases: dict, functions: dict) -> None:
        """Update the aliases for the assignments in ``stmt``; record in-place module methods."""
        nodes = [n for n in ast.walk(stmt) if isinstance(n, ast.Assign | ast.Expr)]
        for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
            if isinstance(node, ast.Expr):
                if (r := self._ref(node.value, aliases)) is not None:
                    r[0].chain += r[1]
                continue
            pairs = [(t, node.value) for t in node.targets]
            if isinstance(node.value, ast.Tuple):
                pairs += [
                    (t, v)
                    for tgt in node.targets
                    if isinstance(tgt, ast.Tuple) and len(tgt.elts) == len(node.value.elts)
                    for t, v in zip(tgt.elts, node.value.elts)
                ]
            for t, v in pairs:
                if not isinstance(t, ast.Name):
                    continue
                fn, r = self._function(v, functions), self._ref(v, aliases)
                aliases.pop(t.id, None)
                functions.pop(t.id, None)
                if fn is not None:
                    functions[t.id] = fn
                if r is None:
                    continue
                ctor, aliases[t.id] = r[0], r[0]
                ctor.var = ctor.var or t.id
                ctor.chain += r[1]
                ctor.compiled |= any(fa.unwrap_compile(n) is not None for n in ast.walk(v))

    # -- finding the call --------------------------------------------------------------------

    def _scan(self) -> None:
        """Record the constructions and stop at the first call that runs one of them."""
        aliases: dict[str, Construction] = {}
        functions = {k: v for k, v in self.defs.items() if isinstance(v, ast.FunctionDef)}
        for i, stmt in enumerate(self.flat):
            if isinstance(stmt, (*fa.DEFS, ast.Import, ast.ImportFrom)):
                continue
            for n in ast.walk(stmt):
                if isinstance(n, ast.Call) and dotted_name(n.func) in self.classes:
                    self.ctors.setdefault(id(n), Construction(n, dotted_name(n.func), i))
            for call in fa.calls_in_order(stmt):
                if (ctor := self._called(call, aliases)) is not None:
                    self.uses.append(Use(ctor, call, i, f"`{fa.short(call)}`"))
                    return
                fn = self._function(call.func, functions)
                if fn is not None and (use := self._trace(fn, call, i, aliases)) is not None:
                    self.uses.append(use)
                    return
                first = self._ref(call.args[0], aliases) if call.args else None
                if first and len(call.args) >= 2 and fa.unwrap_compile(call) is None:
                    self.others.append(self._generic(call, first[0], i))
            self._track(stmt, aliases, functions)

    def _trace(
        self, fn: ast.FunctionDef, call: ast.Call, i: int, aliases: dict[str, Construction]
    ) -> Use | None:
        """The call inside local function ``fn`` that runs the model (passed as an argument or
        global), in terms of ``call``'s arguments; None when ``fn`` does not touch the model."""
        bound = fa.bind_args(fn, call)
        what = f"`{fa.short(call)}` (helper `{fn.name}`)"
        local = {k: v for k, v in aliases.items() if k not in (bound or {})}
        for p, e in (bound or {}).items():
            if (r := self._ref(e, aliases)) is not None:
                local[p] = r[0]
        if not any(isinstance(n, ast.Name) and n.id in local for n in ast.walk(fn)):
            return None
        if bound is None:
            self.failures.append(self.fail(f"{what}: cannot bind its arguments", call))
            return None
        fn_locals = fa.local_names(fn) - set(bound)
        functions: dict[str, ast.FunctionDef] = {}
        for stmt in fn.body:
            for n in fa.calls_in_order(stmt):
                if (ctor := self._called(n, local)) is None:
                    continue
                inner = ast.Call(func=ast.Name("_", ast.Load()), args=n.args, keywords=n.keywords)
                if stray := sorted(fa.uses(inner) & fn_locals):
                    self.failures.append(
                        self.fail(
                            f"model `{ctor.var or ctor.cls}` is called as `{fa.short(n)}` (line"
                            f" {n.lineno}) with `{stray[0]}` built inside function `{fn.name}`,"
                            f" reached from {what}: build the inputs at module level or add"
                            " `inputs = [...]`",
                            call,
                        )
                    )
                    return None
                traced = fa.Substitute(bound).visit(copy.deepcopy(inner))
                return Use(ctor, ast.copy_location(traced, call), i, what)
            self._track(stmt, local, functions)
        return None

    def _generic(self, call: ast.Call, ctor: Construction, i: int) -> Use:
        """``torch.export.export(m, (x, y))``-style: the second argument holds the inputs."""
        arg = call.args[1]
        if isinstance(self.env.get(getattr(arg, "id", "")), ast.List | ast.Tuple):
            arg = ast.Starred(value=arg, ctx=ast.Load())
        args = list(arg.elts) if isinstance(arg, ast.List | ast.Tuple) else [arg]
        inputs = ast.copy_location(ast.Call(func=call.func, args=args, keywords=[]), call)
        return Use(ctor, inputs, i, f"`{fa.short(call)}`")
