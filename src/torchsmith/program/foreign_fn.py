"""Import a *function* repro script as a canonical function program (``fn`` + inputs).

The scripts this reads compile a function rather than an nn.Module: ``cf = torch.compile(f,
...)`` then ``cf(x)``; ``@torch.compile(...) def f``; ``torch.compile(f)(x)``; a torch
function, a lambda, ``torch.func.jacfwd(f)`` or a model instance compiled in place. Works on
the AST alone (nothing is executed), after :class:`~torchsmith.program.foreign_flow.Expander`
made the module level straight (helpers inlined, loops over literals unrolled). The rules:

1. **Calls.** Every call of a compiled callable, in execution order. Calls through a site
   compiled with ``backend="eager"`` are references and skipped when another backend is
   called. The target is the compiled expression of the first remaining call; every call of
   the same expression is one call of the sequence (``get_calls()`` when there are several).
2. **Target.** A local function is renamed ``fn`` (its compile decorators dropped); anything
   else ``E`` becomes ``def fn(*args, **kwargs): return E(*args, **kwargs)`` (a lambda becomes
   a ``def`` with its parameters). A class named ``Model`` is renamed, since ``class Model``
   would be taken as the target.
3. **Arguments.** Positional arguments as written (``*args`` kept); keywords are mapped onto
   ``fn``'s parameters, ``**d`` with ``d`` a dict literal expanded; keywords that cannot be
   mapped become ``get_kwargs()`` (one call only). The statements they depend on (transitive,
   by name, before the call) run in ``get_inputs()``/``get_calls()`` in source order, with the
   seeding calls before them; each call's arguments are taken where the call was.
4. **State between calls.** A statement between two calls that changes a global the target
   reads (``GlobalState.factor = 10.0``, ``SCALE = 2``) runs in ``before_call(i, target)``
   before call ``i``; what set those globals before the first call is replayed for ``i == 0``.
5. **Settings.** ``compile_kwargs`` from the literal ``torch.compile`` arguments (``backend``
   unless inductor, ``fullgraph``, ``dynamic``, ``mode``, ``options``); ``compile_config``
   from ``torch._inductor.config.x = v``-style lines (any alias of a config module) and
   ``config.patch(...)`` headers before the last call; ``check_options = {"grad": True}`` when
   the script back-propagates.
6. **Module level.** Imports, the target, and the definitions and assignments it reads
   (transitively, seeded), plus ``torch.set_default_dtype``/``set_grad_enabled`` calls. The
   rest (eager references, prints, asserts, comparisons) is dropped; settings dropped are noted.

What cannot be converted raises :class:`~torchsmith.program.format.ProgramFormatError` with
one sentence naming the construct.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from typing import Any

from torchsmith.options import CONFIG_MODULES
from torchsmith.program import foreign_ast as fa
from torchsmith.program.foreign_flow import Expander, fold
from torchsmith.program.format import Program, ProgramFormatError, dotted_name, parse_source

_SEEDS = {
    "torch.manual_seed", "torch.random.manual_seed", "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all", "random.seed", "np.random.seed", "numpy.random.seed",
}  # fmt: skip
_KEPT_CALLS = {"torch.set_default_dtype", "torch.set_grad_enabled"}
_KWARGS = ("backend", "fullgraph", "dynamic", "mode", "options")
_CONFIG_PREFIX = {module: prefix for prefix, module in CONFIG_MODULES.items()}
#: Settings the oracle fixes itself: not worth a ``compile_config`` entry.
_ORACLE_FIXED = {"inductor.fallback_random"}


@dataclasses.dataclass
class _Site:
    expr: ast.expr  # what is compiled
    kwargs: list[ast.keyword]
    line: int

    @property
    def backend(self) -> str | None:
        for k in self.kwargs:
            if k.arg == "backend" and isinstance(k.value, ast.Constant):
                return str(k.value.value)
        return None


@dataclasses.dataclass
class _Call:
    site: _Site
    call: ast.Call
    index: int  # flat statement index


def import_function_script(
    source: str, name: str = "program", path: str | None = None, device: str = "cpu"
) -> Program:
    """Convert a function repro script into a canonical function program (``origin="foreign"``)
    without running it. Raises :class:`ProgramFormatError` naming what cannot be converted."""
    return _FunctionImporter(source, name, path, device).run()


def _unwrap(e: ast.expr) -> tuple[ast.expr, list[ast.keyword]] | None:
    """``(f, keywords)`` for ``torch.compile(f, **kw)`` / ``torch._dynamo.optimize(...)(f)``."""
    inner = fa.unwrap_compile(e)
    if inner is None or not isinstance(e, ast.Call):
        return None
    if isinstance(e.func, ast.Call):  # optimize("inductor")(f)
        kws = list(e.func.keywords)
        if e.func.args:
            kws.insert(0, ast.keyword("backend", e.func.args[0]))
        return inner, kws
    return inner, list(e.keywords)


def _keys(kw: list[ast.expr]) -> list[str]:
    """The keyword names of a call's ``get_kwargs`` dict (``["**"]`` when not a literal)."""
    if not kw:
        return []
    d = kw[0]
    if isinstance(d, ast.Dict):
        return [str(getattr(k, "value", "**")) for k in d.keys]
    return ["**"]


class _FunctionImporter:
    def __init__(self, source: str, name: str, path: str | None, device: str) -> None:
        self.where, self.name, self.path, self.device = path or name, name, path, device
        self.tree = parse_source(source, self.where)
        self.ex = Expander(self.tree, self.where)
        self.flat = self.ex.expand(self.tree.body)
        self.notes = self.ex.notes
        self.defs = {s.name: s for s in self.flat if isinstance(s, fa.DEFS)}
        imports = [s for s in self.flat if isinstance(s, ast.Import | ast.ImportFrom)]
        self.imported: set[str] = set().union(*map(fa.import_names, imports))
        self.aliases = self._config_aliases(imports)
        self.touches = [self._touches(s) for s in self.flat]
        self.needs = [fa.uses(s) for s in self.flat]

    def fail(self, msg: str, node: ast.AST | None = None) -> ProgramFormatError:
        return fa.error(self.where, msg, node)

    # -- finding the calls ---------------------------------------------------------------------
    def _calls(self) -> list[_Call]:
        sites: dict[str, _Site] = {}
        for s in self.flat:
            if isinstance(s, ast.FunctionDef):
                for d in s.decorator_list:
                    if fa.is_compile(d):
                        kws = list(d.keywords) if isinstance(d, ast.Call) else []
                        if isinstance(d, ast.Call) and isinstance(d.func, ast.Call):
                            kws = list(d.func.keywords) + kws
                        sites[s.name] = _Site(ast.Name(s.name, ast.Load()), kws, s.lineno)
        out: list[_Call] = []
        for i, stmt in enumerate(self.flat):
            if isinstance(stmt, fa.DEFS):
                continue
            for call in fa.calls_in_order(stmt):
                f = call.func
                if isinstance(f, ast.Name) and f.id in sites:
                    out.append(_Call(sites[f.id], call, i))
                elif (u := _unwrap(f)) is not None:
                    out.append(_Call(_Site(u[0], u[1], call.lineno), call, i))
            if isinstance(stmt, ast.Assign):  # aliases of compiled callables
                value = stmt.value
                site = None
                if (u := _unwrap(value)) is not None:
                    site = _Site(u[0], u[1], value.lineno)
                elif isinstance(value, ast.Name) and value.id in sites:
                    site = sites[value.id]
                for t in stmt.targets:
                    if isinstance(t, ast.Name):
                        sites.pop(t.id, None)
                        if site is not None:
                            sites[t.id] = site
        return out

    def _choose(self, calls: list[_Call]) -> list[_Call]:
        compiled = [c for c in calls if c.site.backend != "eager"] or calls
        key = ast.dump(compiled[0].site.expr)
        return [c for c in compiled if ast.dump(c.site.expr) == key]

    # -- the program ---------------------------------------------------------------------------
    def run(self) -> Program:
        calls = self._calls()
        if not calls:
            raise self.fail(
                "no nn.Module subclass and no call of a compiled function found: a repro script"
                " must call what it compiles (`torch.compile(f)(x)`, `@torch.compile`)"
            )
        calls = self._choose(calls)
        site = calls[0].site
        target, header = self._target(site)
        fn_params = self._params(target)
        args = [self._args(c, fn_params) for c in calls]
        shape = [sorted(_keys(kw)) for _, kw in args]
        if any(s != shape[0] for s in shape):
            kept = [k for k, s in enumerate(shape) if s == shape[0]]
            self.notes.append(
                f"dropped: {len(calls) - len(kept)} compiled calls passing other keyword arguments"
            )
            calls, args = [calls[k] for k in kept], [args[k] for k in kept]
        first, last = calls[0].index, calls[-1].index
        self.notes[:0] = [header, f"calls: {len(calls)} (lines {self._lines(calls)})"]
        free = fa.uses(target) if target is not site.expr else fa.uses(site.expr)
        prelude = self._closure(free, first)
        prelude |= {j for j in range(first) if fa.call_name(self.flat[j]) in _KEPT_CALLS}
        before = self._before_calls(calls, free, prelude)
        arg_names = set().union(*(fa.uses(ast.List([*a, *kw], ast.Load())) for a, kw in args))
        inputs: set[int] = set()
        for c, (a, _) in zip(calls, args):
            names = fa.uses(ast.List(a, ast.Load()))
            inputs |= self._closure(names, c.index)
        inputs -= prelude
        kw_idx: set[int] = set()
        if args[0][1]:
            kw_idx = self._closure(fa.uses(args[0][1][0]), calls[0].index) - prelude
        defs = {j for j in inputs | kw_idx if isinstance(self.flat[j], fa.DEFS)}
        kw_idx -= defs
        prelude, inputs = prelude | defs, inputs - defs
        # Statements that rebind a module-level name the target reads stay at module level.
        bound = set().union(*(fa.stores(self.flat[j]) for j in prelude)) if prelude else set()
        moved = {j for j in inputs if self.touches[j] & (bound | free) and j < first}
        prelude |= moved
        inputs -= moved
        self._check_defined(arg_names, calls)
        random = {j for j in prelude if not isinstance(self.flat[j], fa.DEFS)}
        random = {j for j in random if fa.has_call(self.flat[j])}
        prelude |= set(self._seeds(random, first))

        prelude = {j for j in prelude if self.flat[j] is not target}
        module = ast.Module(body=[self._header(), *self._imports()], type_ignores=[])
        for j in sorted(prelude):
            s = copy.deepcopy(self.flat[j])
            if not isinstance(s, ast.Import | ast.ImportFrom):
                module.body.append(s)
        mapping = self._renames(module, target)
        module.body.append(self._as_def(target))
        for s in module.body:
            self.notes += [f"dropped: {d}" for d in fa.strip_compile_decorators(s)]
        ours = self._protocol(calls, args, inputs, before, kw_idx)
        renamer = fa.Renamer(mapping)
        module.body = [renamer.visit(s) for s in module.body]
        for f in ours:
            f.body = [renamer.visit(s) for s in f.body]  # type: ignore[attr-defined]
        module.body += ours + self._settings(calls, last)
        self._note_dropped(prelude | inputs | kw_idx | {j for b in before.values() for j in b})
        module = fa.DeviceRewriter(self.device).visit(module)
        text = ast.unparse(ast.fix_missing_locations(module)) + "\n"
        notes = tuple(dict.fromkeys(self.notes))
        return Program(text, "fn", self.name, origin="foreign", path=self.path, notes=notes)

    def _lines(self, calls: list[_Call]) -> str:
        lines = sorted({c.call.lineno for c in calls})
        return ", ".join(map(str, lines[:6])) + (", ..." if len(lines) > 6 else "")

    def _target(self, site: _Site) -> tuple[ast.AST, str]:
        e = site.expr
        if isinstance(e, ast.Name) and isinstance(self.defs.get(e.id), ast.FunctionDef):
            return self.defs[e.id], f"function: `{e.id}` compiled at line {site.line}"
        return e, f"function: `{fa.short(e)}` compiled at line {site.line}, wrapped as `fn`"

    def _params(self, target: ast.AST) -> list[str] | None:
        if isinstance(target, ast.FunctionDef | ast.Lambda):
            a = target.args
            if a.vararg is None and a.kwarg is None and not a.kwonlyargs:
                return [p.arg for p in [*a.posonlyargs, *a.args]]
        return None

    def _as_def(self, target: ast.AST) -> ast.stmt:
        if isinstance(target, ast.FunctionDef):
            f = copy.deepcopy(target)
            f.name = "fn"
            return f
        if isinstance(target, ast.Lambda):
            f = ast.parse("def fn():\n    return None\n").body[0]
            f.args = copy.deepcopy(target.args)  # type: ignore[attr-defined]
            f.body = [ast.Return(copy.deepcopy(target.body))]  # type: ignore[attr-defined]
            return f  # type: ignore[return-value]
        f = ast.parse("def fn(*args, **kwargs):\n    return E(*args, **kwargs)\n").body[0]
        call = f.body[0].value  # type: ignore[attr-defined]
        call.func = copy.deepcopy(target)
        return f  # type: ignore[return-value]

    def _args(self, c: _Call, params: list[str] | None) -> tuple[list[ast.expr], list[ast.expr]]:
        """Positional arguments (a list display's elements) and keyword arguments (``[Dict]``
        or ``[]``) of one call."""
        call = c.call
        args = [copy.deepcopy(a) for a in call.args]
        kws: list[ast.keyword] = []
        for k in call.keywords:
            if k.arg is not None:
                kws.append(k)
                continue
            d = k.value
            value = self.ex.dicts.get(d.id) if isinstance(d, ast.Name) else d
            if isinstance(value, ast.Dict) and all(isinstance(x, ast.Constant) for x in value.keys):
                for key in value.keys:
                    item = ast.Subscript(copy.deepcopy(d), copy.deepcopy(key), ast.Load())
                    kws.append(ast.keyword(str(key.value), item))  # type: ignore[union-attr]
            else:
                return args, [copy.deepcopy(d)]
        if not kws:
            return args, []
        if params is not None and not any(isinstance(a, ast.Starred) for a in args):
            given = dict(zip(params, args)) | {k.arg: k.value for k in kws if k.arg}
            if set(given) <= set(params):
                last = max(params.index(p) for p in given)
                if all(p in given for p in params[: last + 1]):
                    return [copy.deepcopy(given[p]) for p in params[: last + 1]], []
        keys = [ast.Constant(k.arg) for k in kws]
        return args, [ast.Dict(keys, [copy.deepcopy(k.value) for k in kws])]  # type: ignore[arg-type]

    # -- dependencies ------------------------------------------------------------------------
    def _touches(self, stmt: ast.stmt) -> set[str]:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            return set()
        functions = {n for n, d in self.defs.items() if isinstance(d, ast.FunctionDef)}
        return fa.stores(stmt) | (fa.mutated(stmt) - self.imported - functions)

    def _closure(self, names: set[str], limit: int) -> set[int]:
        """Statements before ``limit`` that bind or change ``names``, transitively; never one
        that compiles (but a definition) or calls the compiled target."""
        keep: set[int] = set()
        todo, done = set(names), set()
        while todo:
            n = todo.pop()
            done.add(n)
            for j in range(min(limit, len(self.flat))):
                s = self.flat[j]
                if j in keep or n not in self.touches[j]:
                    continue
                if isinstance(s, fa.DEFS) or not (fa.compiles(s) or self._calls_compiled(s)):
                    keep.add(j)
                    todo |= self.needs[j] - done
        return keep

    def _calls_compiled(self, s: ast.stmt) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.ex.compiled for n in ast.walk(s))

    def _before_calls(
        self, calls: list[_Call], free: set[str], prelude: set[int]
    ) -> dict[int, list[int]]:
        """Call number -> flat indices of statements changing the target's globals just before
        it (``before_call``); empty when the globals never change between calls."""
        reads = set(free)
        for j in prelude:  # globals the target reads through its helpers
            if isinstance(self.flat[j], ast.FunctionDef | ast.ClassDef):
                reads |= fa.uses(self.flat[j])
        functions = {n for n, d in self.defs.items() if not isinstance(d, ast.ClassDef)}
        reads -= self.imported | functions
        out: dict[int, list[int]] = {}
        for k in range(1, len(calls)):
            lo, hi = calls[k - 1].index, calls[k].index
            blk = [
                j
                for j in range(lo, hi)
                if not isinstance(self.flat[j], fa.DEFS)
                and self.touches[j] & reads
                and not self._calls_compiled(self.flat[j])
                and not fa.compiles(self.flat[j])
            ]
            if lo == hi or not blk:
                continue
            needs = set().union(*(self.needs[j] for j in blk))
            blk += [j for j in range(lo, hi) if self.touches[j] & needs and j not in blk]
            out[k] = sorted(set(blk))
        if out:
            changed = set().union(*(self.touches[j] for b in out.values() for j in b))
            first = [
                j
                for j in sorted(prelude)
                if not isinstance(self.flat[j], fa.DEFS)
                and self.touches[j] & changed
                and not fa.stores(self.flat[j]) & set(self.defs)
            ]
            if first:
                out[0] = first
        return out

    def _seeds(self, idx: set[int], limit: int) -> list[int]:
        seeds = [j for j in range(limit) if fa.call_name(self.flat[j]) in _SEEDS]
        if not idx:
            return []
        lo, hi = min(idx), max(idx)
        return sorted(
            idx | set([j for j in seeds if j < lo][-1:]) | {j for j in seeds if lo < j < hi}
        )

    def _check_defined(self, names: set[str], calls: list[_Call]) -> None:
        defined = self.imported | fa.BUILTINS | set(self.defs)
        defined |= set().union(*(fa.stores(s) for s in self.flat[: calls[-1].index + 1]))
        for n in sorted(names - defined):
            inside = [
                f.name
                for f in ast.walk(self.tree)
                if isinstance(f, ast.FunctionDef) and n in fa.local_names(f)
            ]
            where = f" (it is built inside function `{inside[0]}`)" if inside else ""
            raise self.fail(
                f"the arguments of the compiled call use `{n}`, which is not defined at module"
                f" level{where}",
                calls[0].call,
            )

    # -- writing -------------------------------------------------------------------------------
    def _stmts(self, idx: list[int]) -> list[ast.stmt]:
        return [copy.deepcopy(self.flat[j]) for j in idx]

    def _protocol(
        self,
        calls: list[_Call],
        args: list[tuple[list[ast.expr], list[ast.expr]]],
        inputs: set[int],
        before: dict[int, list[int]],
        kw_inputs: set[int],
    ) -> list[ast.FunctionDef]:
        out: list[ast.FunctionDef] = []
        body_idx = self._seeds(inputs, calls[-1].index)
        if len(calls) == 1:
            f = ast.parse("def get_inputs():\n    pass\n").body[0]
            f.body = [*self._stmts(body_idx), ast.Return(ast.List(args[0][0], ast.Load()))]  # type: ignore[attr-defined]
            out.append(f)
        else:
            f = ast.parse("def get_calls():\n    pass\n").body[0]
            body: list[ast.stmt] = []
            pos = 0
            for k, c in enumerate(calls):
                while pos < len(body_idx) and body_idx[pos] < c.index:
                    body.append(copy.deepcopy(self.flat[body_idx[pos]]))
                    pos += 1
                snap = ast.List(args[k][0], ast.Load())
                body.append(ast.Assign([ast.Name(f"call{k}", ast.Store())], snap))
            names = [ast.Name(f"call{k}", ast.Load()) for k in range(len(calls))]
            f.body = [*body, ast.Return(ast.List(names, ast.Load()))]  # type: ignore[attr-defined]
            out.append(f)
        if args[0][1]:
            kw = ast.parse("def get_kwargs():\n    pass\n").body[0]
            kw_idx = self._seeds(kw_inputs, calls[0].index)
            kw.body = [*self._stmts(kw_idx), ast.Return(args[0][1][0])]  # type: ignore[attr-defined]
            out.append(kw)
        if before:
            bc = ast.parse("def before_call(i, target):\n    pass\n").body[0]
            blocks: list[ast.stmt] = []
            rebound = set().union(*(fa.stores(self.flat[j]) for b in before.values() for j in b))
            if rebound:
                blocks.append(ast.Global(sorted(rebound)))
            for k in sorted(before):
                test = ast.parse(f"i == {k}", mode="eval").body
                blocks.append(ast.If(test, self._stmts(before[k]), []))
            bc.body = blocks  # type: ignore[attr-defined]
            out.append(bc)
        return out

    def _config_aliases(self, imports: list[ast.stmt]) -> dict[str, str]:
        """Local name -> config module (``config`` for ``from torch._inductor import config``)."""
        out = {m: m for m in _CONFIG_PREFIX}
        for s in imports:
            for a in s.names:  # type: ignore[attr-defined]
                full = a.name if isinstance(s, ast.Import) else f"{s.module}.{a.name}"
                if full in _CONFIG_PREFIX and (a.asname or isinstance(s, ast.ImportFrom)):
                    out[a.asname or a.name] = full
        return out

    def _config_key(self, target: ast.expr) -> str | None:
        name = dotted_name(target)
        for alias, module in sorted(self.aliases.items(), key=lambda kv: -len(kv[0])):
            if name.startswith(alias + ".") and len(name) > len(alias) + 1:
                return f"{_CONFIG_PREFIX[module]}.{name[len(alias) + 1 :]}"
        return None

    def _settings(self, calls: list[_Call], last: int) -> list[ast.stmt]:
        config: dict[str, Any] = {}
        for s in self.flat[:last]:
            if isinstance(s, ast.Assign) and len(s.targets) == 1:
                key = self._config_key(s.targets[0])
                if key is not None:
                    try:
                        config[key] = ast.literal_eval(s.value)
                    except (ValueError, SyntaxError, TypeError):
                        self.notes.append(f"dropped: {ast.unparse(s)} (not a literal)")
        for module, call in self.ex.patches:
            for k in call.keywords:
                key = self._config_key(ast.parse(f"{module}.{k.arg}", mode="eval").body)
                try:
                    value = ast.literal_eval(k.value)
                except (ValueError, SyntaxError, TypeError):
                    continue
                if key is not None:
                    config[key] = value
        config = {k: v for k, v in config.items() if k not in _ORACLE_FIXED or v is not True}
        kwargs: dict[str, Any] = {}
        for k in calls[0].site.kwargs:
            if k.arg not in _KWARGS:
                continue
            try:
                kwargs[k.arg] = ast.literal_eval(fold(copy.deepcopy(k.value)))
            except (ValueError, SyntaxError, TypeError):
                self.notes.append(f"dropped: torch.compile({k.arg}={ast.unparse(k.value)})")
        if kwargs.get("backend") == "inductor":
            del kwargs["backend"]
        out = []
        if kwargs:
            out.append(ast.parse(f"compile_kwargs = {kwargs!r}").body[0])
        if config:
            out.append(ast.parse(f"compile_config = {config!r}").body[0])
        if self._backprops(calls):
            out.append(ast.parse('check_options = {"grad": True}').body[0])
        return out

    def _backprops(self, calls: list[_Call]) -> bool:
        for s in self.flat[calls[0].index :]:
            for n in ast.walk(s):
                if isinstance(n, ast.Call) and (
                    (isinstance(n.func, ast.Attribute) and n.func.attr == "backward")
                    or dotted_name(n.func) == "torch.autograd.grad"
                ):
                    return True
        return False

    def _header(self) -> ast.stmt:
        return ast.Expr(ast.Constant(f"Imported from {self.where} by torchsmith."))

    def _imports(self) -> list[ast.stmt]:
        """Every import of the script, once each, in source order."""
        return fa.script_imports(self.flat)

    def _renames(self, module: ast.Module, target: ast.AST) -> dict[str, str]:
        """Renames for the kept code: the target becomes ``fn`` (another ``fn`` moves aside), a
        class ``Model`` (it would be taken for the target) and the script's own ``get_inputs``
        & co. become ``_script_<name>``."""
        defined = {n.name for n in module.body if isinstance(n, fa.DEFS)}
        defined |= set().union(*(fa.stores(s) for s in module.body))
        mapping: dict[str, str] = {}
        for old in ("Model", "fn", "get_inputs", "get_calls", "get_kwargs", "before_call"):
            if old in defined:
                mapping[old] = f"_script_{old}"
                self.notes.append(f"renamed: {old} to _script_{old}")
        if isinstance(target, ast.FunctionDef) and target.name != "fn":
            mapping[target.name] = "fn"
            self.notes.append(f"renamed: function {target.name} to fn")
        return mapping

    def _note_dropped(self, kept: set[int]) -> None:
        for j, s in enumerate(self.flat):
            if j not in kept and fa.is_setting(s) and self._config_key_of(s) is None:
                self.notes.append(f"dropped: {ast.unparse(s)}")

    def _config_key_of(self, s: ast.stmt) -> str | None:
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            return self._config_key(s.targets[0])
        return None
