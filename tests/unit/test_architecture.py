"""The layout rules of ``notes/architecture.md``, checked on the source (AST only, fast).

* no import loop between torchsmith modules (module-level and deferred imports alike; imports
  under ``if TYPE_CHECKING:`` never run and do not count);
* no ``from torchsmith.x import _private`` across modules;
* no module over 600 lines;
* the worker protocol is built in one place: no request dict written by hand outside
  ``execute/protocol.py``;
* ``execute/`` is process machinery: it never imports the judge at module level.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PKG = SRC / "torchsmith"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _resolve(module: str, name: str | None) -> str:
    """The torchsmith module an import names (``from pkg import sub`` names ``pkg.sub``)."""
    if name and f"{module}.{name}" in MODULES:
        return f"{module}.{name}"
    return module


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node except those under ``if TYPE_CHECKING:`` (never imported at run time)."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            todo += node.orelse
            continue
        out.append(node)
        todo += list(ast.iter_child_nodes(node))
    return out


def imports(name: str, *, toplevel_only: bool = False) -> list[tuple[str, str | None]]:
    """``(module, imported name)`` for each torchsmith import in module ``name`` that runs
    (``if TYPE_CHECKING:`` imports are for the type checker only)."""
    tree = ast.parse(MODULES[name].read_text())
    nodes = tree.body if toplevel_only else _runtime_nodes(tree)
    out: list[tuple[str, str | None]] = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("torchsmith"):
                out += [(_resolve(node.module, a.name), a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names if a.name.startswith("torchsmith")]
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name in MODULES:
        graph[name] = {m for m, _ in imports(name) if m in MODULES and m != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                return stack[stack.index(d) :] + [d]
            if d not in state and (found := visit(d)) is not None:
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)) is not None:
            return found
    return None


def test_cycle_finder_finds_a_planted_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_loop():
    cycle = find_cycle(_graph())
    assert cycle is None, "import loop: " + " -> ".join(cycle or [])


def test_no_private_imports_across_modules():
    bad = []
    for name in MODULES:
        for module, imported in imports(name):
            if imported and imported.startswith("_") and module != name:
                bad.append(f"{name} imports {module}.{imported}")
    assert not bad, bad


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{name}: {lines} lines (at most {MAX_LINES})"


def test_requests_are_built_only_by_the_protocol_module():
    """A dict literal with a ``"kind"`` key and a ``"program"`` or ``"function"`` key is a
    hand-built request; only ``execute/protocol.py`` writes those."""
    offenders = []
    roots = [PKG, SRC.parent / "tests", SRC.parent / "bench"]
    for path in (p for root in roots for p in root.rglob("*.py")):
        if path == PKG / "execute" / "protocol.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if "kind" in keys and keys & {"program", "function", "options"}:
                    offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, offenders


def test_execute_does_not_import_the_judge_at_module_level():
    for name in MODULES:
        if name.startswith("torchsmith.execute"):
            for module, _ in imports(name, toplevel_only=True):
                assert not module.startswith("torchsmith.oracle"), f"{name} imports {module}"


# -- rules added by the structure step ------------------------------------------------------------
VERDICT_VALUES = {
    "pass", "invalid", "nondeterministic", "unstable", "crash", "mismatch", "nan-mismatch",
    "meta-mismatch", "imprecise", "limit", "timeout", "died",
}  # fmt: skip


def _verdict_groupings(tree: ast.AST) -> list[int]:
    """Lines of set/tuple/list literals naming two or more verdicts (``Verdict.X`` members or
    their values): a grouping of verdicts written outside ``verdict.py``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Set | ast.Tuple | ast.List):
            members = [
                e
                for e in node.elts
                if (isinstance(e, ast.Attribute) and ast.unparse(e.value) == "Verdict")
                or (isinstance(e, ast.Constant) and e.value in VERDICT_VALUES)
            ]
            if len(members) >= 2:
                out.append(node.lineno)
    return out


def test_verdict_categories_are_defined_only_in_verdict_py():
    """Which verdicts are bugs, lesser bugs, program faults, not judged or passing, and every
    other grouping (behaviour failures, wrong outputs, probe candidates), is asked of
    ``verdict.py`` (``Verdict.category``, ``CheckResult.category``, ``is_*`` properties)."""
    offenders = []
    for name, path in MODULES.items():
        if name == "torchsmith.verdict":
            continue
        offenders += [f"{name}:{n}" for n in _verdict_groupings(ast.parse(path.read_text()))]
    assert not offenders, offenders


def test_the_verdict_grouping_rule_catches_a_planted_grouping():
    planted = "BUGS = {Verdict.CRASH, Verdict.MISMATCH}\nOK = {'pass', 'unstable'}\n"
    assert _verdict_groupings(ast.parse(planted)) == [1, 2]


def _sql_in(tree: ast.AST) -> list[int]:
    sql = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "PRAGMA ", "CREATE TABLE")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if "sqlite3" in names:
                out.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.lstrip().startswith(sql):
                out.append(node.lineno)
    return out


def test_no_sql_outside_the_store():
    offenders = []
    for name, path in MODULES.items():
        if name != "torchsmith.campaign.store":
            offenders += [f"{name}:{n}" for n in _sql_in(ast.parse(path.read_text()))]
    assert not offenders, offenders
    assert _sql_in(ast.parse("import sqlite3\nq = 'SELECT * FROM t'\n")) == [1, 2]


#: What a CLI module may not hold: the campaign's own rules and its store.
_CAMPAIGN_LOGIC = ("CLI_FIELDS", "OVERRIDABLE", "from_params", "to_params", "set_params")


def test_cli_modules_hold_no_campaign_logic():
    """The CLI parses and calls: the flag-to-field map, the new/resume rule and the store's
    params belong to ``campaign/config.py`` and ``campaign/store.py``."""
    offenders = []
    for name, path in MODULES.items():
        if not name.startswith("torchsmith.cli"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Name | ast.Attribute):
                ident = node.id if isinstance(node, ast.Name) else node.attr
                if ident in _CAMPAIGN_LOGIC:
                    offenders.append(f"{name}:{node.lineno} {ident}")
            if isinstance(node, ast.Dict) and len(node.keys) >= 5:
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if {"seed", "count", "jobs", "generator"} <= keys and all(
                    isinstance(v, ast.Constant) for v in node.values
                ):
                    offenders.append(f"{name}:{node.lineno} a flag-to-field map")
    assert not offenders, offenders


def test_judge_and_program_never_import_the_troubleshooting_or_process_layers():
    """Imports point one way: ``oracle/`` never imports ``troubleshoot/``; ``program/`` (the
    format, loading, rendering) never starts a worker; reports and ``regress`` read a campaign
    through its summary and store, never the loop."""
    bad = []
    for name in MODULES:
        for module, _ in imports(name):
            if name.startswith("torchsmith.oracle") and module.startswith(
                "torchsmith.troubleshoot"
            ):
                bad.append(f"{name} imports {module}")
            if name.startswith("torchsmith.program") and module.startswith(
                ("torchsmith.execute", "torchsmith.check", "torchsmith.campaign")
            ):
                bad.append(f"{name} imports {module}")
            readers = ("torchsmith.report", "torchsmith.regress", "torchsmith.cli.regress")
            if name.startswith(readers) and module == "torchsmith.campaign.loop":
                bad.append(f"{name} imports the fuzz loop")
    assert not bad, bad


def test_no_two_public_functions_share_a_name_across_modules_for_op_helpers():
    """The AST op helpers live in ``program/ops.py`` under one name each."""
    owners: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and "ops" in node.name and not node.name[0] == "_":
                owners.setdefault(node.name, []).append(name)
    dup = {k: v for k, v in owners.items() if len(v) > 1}
    assert not dup, dup


def test_fmt_skip_only_where_formatting_hurts_reading():
    """At most 20 ``# fmt: skip`` in ``src`` (tables whose rows read as rows)."""
    n = sum(p.read_text().count("# fmt: skip") for p in MODULES.values())
    assert n <= 20, n
