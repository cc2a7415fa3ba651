"""Import a repro script (as pasted into a PyTorch issue) as a canonical :class:`Program`.

Works on the AST alone: the script is never executed here. The rules:

1. **Flattening.** The bodies of ``if __name__ == "__main__":``, ``try:`` (handlers dropped)
   and top-level ``with`` blocks count as module level; a ``with`` header other than
   ``no_grad``/``inference_mode`` is noted as dropped. A local function called as a bare
   statement (``main()``, ``test("cuda")``) whose body defines or constructs an nn.Module is
   inlined: parameters bound by assignments, a top-level ``return expr`` kept as ``expr``.
2. **Model** (:mod:`~torchsmith.program.foreign_find`). Constructions ``C(...)`` of local
   nn.Module classes are tracked through variables, module methods (``.eval()``, ``.cuda()``,
   ``.to(...)``, ``.double()``, ...) and wrappers (``torch.compile(m)``,
   ``torch._dynamo.optimize(...)(m)``, ``torch.jit.script(m)``). The model is the construction
   of the first call, in source order, that runs one: ``m(x)``, ``compiled(x)``,
   ``m.forward(x)``, ``Model()(x)``, or a local function that calls it, with the model passed
   in (``run_test(m, inputs, "inductor")``) or global (``@torch.compile def f(x): return m(x)``),
   its parameters replaced by the call's arguments. Failing that, a call passing the model and
   its inputs (``torch.export.export(m, (x,))``), then a module-level ``inputs = [...]`` (or
   ``example_inputs``). A class only used inside another class is never the model.
3. **Constructor.** Its arguments become ``get_init_inputs()``: a list, or a dict when keywords
   are used (positional ones are then named after ``__init__``'s parameters). The statements
   they depend on run inside ``get_init_inputs``. After construction, ``.eval()``,
   ``.train()`` and device moves are dropped (the oracle applies its own); dtype and memory
   format conversions (``.double()``, ``.half()``, ``.to(torch.float64)``,
   ``.to(memory_format=...)``) are replayed as ``self.<call>`` at the end of the model's
   ``__init__`` (one is added when the class has none), so ``Model(*get_init_inputs())``
   builds the model as the script did; a note records it.
4. **Inputs.** The forward arguments of that call (keywords mapped onto ``forward``'s
   parameters) are returned by ``get_inputs()``, after the statements they depend on: the
   transitive closure by name of the module-level statements before the call that bind or
   change them in place (``x[0] = ...``, ``xs.append(...)``), in source order, plus the
   ``torch.manual_seed``-style calls that precede them (the last one before the first, and
   those in between).
5. **Module level.** All imports; the model class and the classes, functions and module-level
   assignments it (or the kept input code) depends on, transitively, seeded like inputs;
   ``torch.set_default_dtype`` and ``torch.set_grad_enabled`` calls. Constants both
   ``get_*`` functions need, and statements that rebind a module-level name, move to module
   level. ``@torch.compile`` decorators are removed from kept code. Everything else is dropped:
   compile calls, prints, asserts, comparisons, timing, unused helpers. Dropped settings
   (``config.x = ...``, ``torch._dynamo.config...``, ``torch.backends...``, ``os.environ[...]``,
   ``with`` headers) are recorded in ``Program.notes`` as ``dropped: <line>``.
6. **Device.** See :class:`~torchsmith.program.foreign_ast.DeviceRewriter`: for ``cpu`` every
   ``"cuda"`` string becomes ``"cpu"`` and ``.cuda()`` / ``.to(<cpu>)`` calls disappear;
   other devices leave the code as it is.
7. **Naming.** The model class is renamed ``Model`` (every reference, e.g. ``super(Net, self)``)
   unless the name ``Model`` is taken, so the output reloads as the same program; a note
   records the original name. A script's own ``get_init_inputs``/``get_inputs`` become
   ``_script_<name>``.

Unsupported (a :class:`ProgramFormatError` says what is missing): models that are not local
classes (``torchvision.models.resnet18()``) or come from factory functions
(``m = make_model()``), inputs built only inside a function that is not inlined, ``**kwargs``
inputs, unittest-style test classes, inputs built in a loop around the call.
"""

from __future__ import annotations

import ast
import copy

from torchsmith.program import foreign_ast as fa
from torchsmith.program.foreign_find import Construction, ModelFinder, Use
from torchsmith.program.format import (
    Program,
    ProgramFormatError,
    dotted_name,
    nn_module_classes,
    parse_source,
)

_SEEDS = {
    "torch.manual_seed",
    "torch.random.manual_seed",
    "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all",
    "random.seed",
    "np.random.seed",
    "numpy.random.seed",
}
_KEPT_CALLS = {"torch.set_default_dtype", "torch.set_grad_enabled"}
_QUIET_WITH = {"torch.no_grad", "torch.inference_mode", "torch.enable_grad"}
_REPLAYED = {"double", "half", "float", "bfloat16"}
_DTYPES = {"float64", "double", "float32", "float", "float16", "half", "bfloat16"}
_DTYPES |= {"complex64", "complex128", "int64", "long", "int32", "int", "int8", "uint8", "bool"}


def import_script(
    source: str, name: str = "program", path: str | None = None, device: str = "cpu"
) -> Program:
    """Convert a repro script into a canonical program (``origin="foreign"``) without running it.

    A script that defines no nn.Module, or whose model cannot be found while it calls a
    compiled function, is converted as a function program
    (:mod:`~torchsmith.program.foreign_fn`). Raises :class:`ProgramFormatError` naming the file
    (and line) when the model, its call or its inputs cannot be found.
    """
    from torchsmith.program.foreign_fn import import_function_script

    importer = _Importer(source, name, path, device)
    if not importer.classes:
        return import_function_script(source, name, path, device)
    try:
        return importer.run()
    except ProgramFormatError as model_error:
        try:
            return import_function_script(source, name, path, device)
        except ProgramFormatError:
            raise model_error from None


class _Importer:
    def __init__(self, source: str, name: str, path: str | None, device: str) -> None:
        self.where, self.name, self.path, self.device = path or name, name, path, device
        self.tree = parse_source(source, self.where)
        self.notes: list[str] = []
        self.flat = self._inline(self._flatten(self.tree.body))
        self.classes = nn_module_classes(ast.Module(body=self.flat, type_ignores=[]))
        self.defs = {s.name: s for s in self.flat if isinstance(s, fa.DEFS)}
        self.env = fa.assignments(self.flat)
        imports = [s for s in self.flat if isinstance(s, ast.Import | ast.ImportFrom)]
        self.imported: set[str] = set().union(*map(fa.import_names, imports))
        self.touches = [self._touches(s) for s in self.flat]
        self.needs = [fa.uses(s) for s in self.flat]

    def fail(self, msg: str, node: ast.AST | None = None) -> ProgramFormatError:
        return fa.error(self.where, msg, node)

    # -- flattening ---------------------------------------------------------------------------

    def _flatten(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for node in body:
            if fa.is_main_guard(node):
                out += self._flatten(node.body)
            elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                out += self._flatten(node.body) + self._flatten(node.orelse)
            elif isinstance(node, ast.With):
                for item in node.items:
                    expr = item.context_expr
                    if dotted_name(getattr(expr, "func", expr)) not in _QUIET_WITH:
                        self.notes.append(f"dropped: with {ast.unparse(item)}:")
                out += self._flatten(node.body)
            else:
                out.append(node)
        return out

    def _inline(self, flat: list[ast.stmt]) -> list[ast.stmt]:
        """Inline bare calls of local functions that define or construct an nn.Module."""
        funcs = {s.name: s for s in flat if isinstance(s, ast.FunctionDef)}
        classes = set(nn_module_classes(ast.Module(body=flat, type_ignores=[])))
        out: list[ast.stmt] = []
        for node in flat:
            call = node.value if isinstance(node, ast.Expr) else None
            fn = funcs.get(dotted_name(call.func)) if isinstance(call, ast.Call) else None
            if fn is None or not any(
                isinstance(n, ast.ClassDef)
                or (isinstance(n, ast.Call) and dotted_name(n.func) in classes)
                for n in ast.walk(fn)
            ):
                out.append(node)
                continue
            bound = fa.bind_args(fn, call)
            if bound is None:
                raise self.fail(f"cannot bind the arguments of `{fa.short(call)}`", call)
            self.notes.append(f"inlined: {ast.unparse(call)}")
            out += [fa.assign(p, e, call) for p, e in bound.items()]
            body: list[ast.stmt] = []
            for stmt in fn.body:
                if isinstance(stmt, ast.Return):
                    if stmt.value is not None:
                        body.append(ast.copy_location(ast.Expr(stmt.value), stmt))
                    break
                body.append(stmt)
            out += self._flatten(body)
        return out

    # -- the program --------------------------------------------------------------------------

    def run(self) -> Program:
        if not self.classes:
            raise self.fail(
                "no nn.Module subclass found: a repro script must define its model as"
                " `class ...(nn.Module)`"
            )
        use = ModelFinder(self.flat, self.classes, self.where).find()
        ctor = use.ctor
        args = self._forward_args(use)
        init = self._init_inputs(ctor)
        self.notes[:0] = [
            f"model: class {ctor.cls} constructed at line {ctor.call.lineno}",
            f"inputs: from {use.how} at line {use.call.lineno}",
        ]
        replay = self._replay(ctor)
        self._check_defined(args, use.index, f"inputs of {use.how}", use.call)
        self._check_defined([init], ctor.index, f"arguments of `{fa.short(ctor.call)}`", ctor.call)

        prelude, init_idx, in_idx = self._partition(use, init, args, replay)
        self._note_dropped(prelude | in_idx | init_idx)

        module = ast.Module(body=[self._header(), *self._imports()], type_ignores=[])
        for j in sorted(prelude):
            module.body += self._prelude_stmt(j, ctor.cls, replay)
        if not any(getattr(s, "name", None) == ctor.cls for s in module.body):
            raise self.fail(f"class {ctor.cls} is not defined before its use", use.call)
        ours = ast.parse("def get_init_inputs():\n    pass\ndef get_inputs():\n    pass\n").body
        ours[0].body = [*self._stmts(sorted(init_idx)), ast.Return(init)]  # type: ignore
        in_body = self._stmts(self._seeds(in_idx, use.index, args))
        ours[1].body = [*in_body, ast.Return(ast.List(args, ast.Load()))]  # type: ignore
        model = self._rename(module, ctor.cls, ours)
        module.body += ours
        module = fa.DeviceRewriter(self.device).visit(module)
        source = ast.unparse(ast.fix_missing_locations(module)) + "\n"
        notes = tuple(self.notes)
        return Program(source, model, self.name, origin="foreign", path=self.path, notes=notes)

    def _partition(
        self, use: Use, init: ast.expr, args: list[ast.expr], replay: list[ast.stmt]
    ) -> tuple[set[int], set[int], set[int]]:
        """Flat statement indices for module level, ``get_init_inputs`` and ``get_inputs``."""
        ctor = use.ctor
        limit = max(use.index, ctor.index + 1)
        in_idx = self._closure(fa.uses(ast.List(args, ast.Load())), use.index)
        init_idx = self._closure(fa.uses(init), ctor.index)
        roots = {ctor.cls} | fa.uses(ast.Module(replay, []))
        roots |= {self.flat[j].name for j in in_idx | init_idx if isinstance(self.flat[j], fa.DEFS)}
        prelude = self._closure(roots, limit)
        prelude |= {j for j in range(limit) if fa.call_name(self.flat[j]) in _KEPT_CALLS}
        # Constants both functions need go to module level, as do statements that would rebind
        # a module-level name inside a function (which would make it local there).
        pure = {j for j in in_idx & init_idx if not fa.has_call(self.flat[j])}
        moved = {j for j in pure if self._closure(self.needs[j], j) <= pure}
        while True:
            for j in moved:
                prelude |= {j} | self._closure(self.needs[j], j)
            in_idx, init_idx = in_idx - prelude, init_idx - prelude
            bound = set().union(*(fa.stores(self.flat[j]) for j in prelude))
            if not (moved := {j for j in in_idx | init_idx if self.touches[j] & bound}):
                break
        random = {j for j in prelude if not isinstance(self.flat[j], fa.DEFS)}
        random = {j for j in random if fa.has_call(self.flat[j])}
        return set(self._seeds(random, limit, [])) | prelude, init_idx, in_idx

    def _header(self) -> ast.stmt:
        return ast.Expr(ast.Constant(f"Imported from {self.where} by torchsmith."))

    def _imports(self) -> list[ast.stmt]:
        """Every import of the script, once each, in source order."""
        return fa.script_imports(self.flat)

    def _stmts(self, idx: list[int]) -> list[ast.stmt]:
        return [copy.deepcopy(self.flat[j]) for j in idx]

    def _prelude_stmt(self, j: int, cls: str, replay: list[ast.stmt]) -> list[ast.stmt]:
        s = copy.deepcopy(self.flat[j])
        if isinstance(s, ast.Import | ast.ImportFrom):
            return []
        if isinstance(s, ast.ClassDef) and s.name == cls and replay:
            s = fa.inject_init(s, replay)
        self.notes += [f"dropped: {d}" for d in fa.strip_compile_decorators(s)]
        return [s]

    def _forward_args(self, use: Use) -> list[ast.expr]:
        """The forward inputs as positional expressions (``Starred`` allowed)."""
        call = use.call
        args = [copy.deepcopy(a) for a in call.args]
        if not call.keywords:
            return args
        if any(k.arg is None for k in call.keywords):
            raise self.fail(f"{use.how} calls the model with `**` keyword inputs", call)
        fwd = self._method(use.ctor.cls, "forward")
        if fwd is None or any(isinstance(a, ast.Starred) for a in args):
            raise self.fail(f"cannot map the keyword inputs of {use.how} to `forward`", call)
        params = [p.arg for p in [*fwd.args.posonlyargs, *fwd.args.args][1:]]
        defaults = dict(zip(params[::-1], fwd.args.defaults[::-1]))
        given = dict(zip(params, args)) | {k.arg: k.value for k in call.keywords}
        if unknown := sorted(set(given) - set(params)):
            raise self.fail(f"{use.how} passes `{unknown[0]}=`, not a `forward` parameter", call)
        last = max(params.index(k) for k in given)
        missing = [p for p in params[: last + 1] if p not in given and p not in defaults]
        if missing:
            raise self.fail(f"{use.how} gives no value for forward's `{missing[0]}`", call)
        return [copy.deepcopy(given.get(p, defaults.get(p))) for p in params[: last + 1]]

    def _init_inputs(self, ctor: Construction) -> ast.expr:
        """The constructor arguments: a list, or a dict when keywords are involved."""
        call = ctor.call
        args, kws = call.args, call.keywords
        if not kws:
            return ast.List([copy.deepcopy(a) for a in args], ast.Load())
        if args:
            init = self._method(ctor.cls, "__init__")
            if init is None or any(isinstance(a, ast.Starred) for a in args):
                raise self.fail(
                    f"`{fa.short(call)}` mixes positional and keyword arguments and {ctor.cls}"
                    " has no `__init__` to map them onto",
                    call,
                )
            params = [p.arg for p in [*init.args.posonlyargs, *init.args.args][1:]]
            kws = [ast.keyword(p, a) for p, a in zip(params, args)] + list(kws)
        keys = [ast.Constant(k.arg) if k.arg else None for k in kws]
        return ast.Dict(keys, [copy.deepcopy(k.value) for k in kws])  # type: ignore[arg-type]

    def _method(self, cls: str, name: str) -> ast.FunctionDef | None:
        node = self.defs.get(cls)
        if not isinstance(node, ast.ClassDef):
            return None
        for s in node.body:
            if isinstance(s, ast.FunctionDef) and s.name == name:
                return s
        for base in node.bases:
            if (found := self._method(dotted_name(base), name)) is not None:
                return found
        return None

    def _replay(self, ctor: Construction) -> list[ast.stmt]:
        """``self.double()``-style statements for the conversions applied after construction."""
        out: list[ast.stmt] = []
        for call in ctor.chain:
            method = call.func.attr  # type: ignore[attr-defined]
            args, kws = call.args, call.keywords
            if method == "to":
                args = [a for a in args if self._is_dtype(a)]
                kws = [k for k in kws if k.arg in ("dtype", "memory_format")]
            if method in _REPLAYED or (method == "to" and (args or kws)):
                self_call = ast.Attribute(ast.Name("self", ast.Load()), method, ast.Load())
                out.append(ast.Expr(ast.Call(self_call, list(args), list(kws))))
                self.notes.append(f"kept: `{ast.unparse(out[-1])}` at the end of __init__")
        return out

    def _is_dtype(self, e: ast.expr, depth: int = 0) -> bool:
        if isinstance(e, ast.Attribute):
            return dotted_name(e).startswith("torch.") and e.attr in _DTYPES or e.attr == "dtype"
        if isinstance(e, ast.Name):
            value = self.env.get(e.id)
            if value is not None and depth < 5:
                return self._is_dtype(value, depth + 1)
            return "dtype" in e.id.lower()
        return False

    # -- dependencies ------------------------------------------------------------------------

    def _touches(self, stmt: ast.stmt) -> set[str]:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            return set()
        return fa.stores(stmt) | (fa.mutated(stmt) - self.imported)

    def _closure(self, names: set[str], limit: int) -> set[int]:
        """Statements before ``limit`` that bind or change ``names``, transitively (never one
        that compiles, except a definition: its compile decorators are removed later)."""
        keep: set[int] = set()
        todo, done = set(names), set()
        while todo:
            n = todo.pop()
            done.add(n)
            for j in range(limit):
                s = self.flat[j]
                if j in keep or n not in self.touches[j]:
                    continue
                if isinstance(s, fa.DEFS) or not fa.compiles(s):
                    keep.add(j)
                    todo |= self.needs[j] - done
        return keep

    def _seeds(self, idx: set[int], use_index: int, args: list[ast.expr]) -> list[int]:
        """``idx`` plus the seeding calls that precede its statements, in source order."""
        seeds = [j for j in range(use_index) if fa.call_name(self.flat[j]) in _SEEDS]
        if idx:
            first, last = min(idx), max(idx)
        elif any(fa.has_call(a) for a in args):
            first = last = use_index
        else:
            return []
        before = [j for j in seeds if j < first][-1:]
        return sorted(idx | set(before) | {j for j in seeds if first < j < last})

    def _check_defined(self, exprs: list[ast.expr], index: int, what: str, node: ast.AST) -> None:
        defined = self.imported | fa.BUILTINS | set(self.defs)
        defined |= set().union(*(fa.stores(s) for s in self.flat[:index]))
        for n in sorted(fa.uses(ast.List(exprs, ast.Load())) - defined):
            inside = [
                f.name
                for f in ast.walk(self.tree)
                if isinstance(f, ast.FunctionDef) and n in fa.local_names(f)
            ]
            where = f" (it is built inside function `{inside[0]}`)" if inside else ""
            if index < len(self.flat) and n in fa.stores(self.flat[index]):
                stmt = self.flat[index]
                where = f" (it is bound by the same statement, line {stmt.lineno}, e.g. a loop)"
            raise self.fail(
                f"the {what} use `{n}`, which is not defined at module level{where}: build it at"
                " module level or add `inputs = [...]`",
                node,
            )

    def _note_dropped(self, kept: set[int]) -> None:
        for j, s in enumerate(self.flat):
            if j not in kept and fa.is_setting(s):
                self.notes.append(f"dropped: {ast.unparse(s)}")

    def _rename(self, module: ast.Module, cls: str, ours: list[ast.stmt]) -> str:
        """Rename the model class to ``Model`` (when free) and the script's own get_* functions,
        in ``module`` and the bodies of ``ours``; return the model's name."""
        mapping = {f: f"_script_{f}" for f in ("get_inputs", "get_init_inputs")}
        everything = ast.Module([*module.body, *ours], [])
        taken = {n.id for n in ast.walk(everything) if isinstance(n, ast.Name)}
        taken |= {n.name for n in ast.walk(everything) if isinstance(n, fa.DEFS)}
        taken |= {a.arg for n in ast.walk(everything) if isinstance(n, ast.arg) for a in [n]}
        taken |= self.imported
        model = cls
        if cls != "Model" and "Model" not in taken:
            mapping[cls] = model = "Model"
            self.notes.append(f"renamed: class {cls} to Model")
        renamer = fa.Renamer(mapping)
        module.body = [renamer.visit(s) for s in module.body]
        for f in ours:
            f.body = [renamer.visit(s) for s in f.body]  # type: ignore[attr-defined]
        return model
