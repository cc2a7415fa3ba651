"""Several generated programs checked as one compiled module (``fuzz --pack K``).

Every compile pays a fixed cost (a Dynamo trace, an AOTAutograd graph, one C++ translation unit
through g++) that dominates small programs on a CPU. :func:`pack` joins K independent programs
into one canonical program: each part keeps its own code (its top-level names prefixed
``_p<i>_``), its own parameters and its own inputs (the check's seed is set before each part's
model and inputs, as when it is checked alone), and the packed forward returns the parts'
outputs as a tuple, so ``out[i]`` is part *i*. One check then covers K programs with one
compile.

:func:`check_packed` attributes the outcome to the parts: a pass passes every part; a wrong
value at ``out[i]`` passes the other parts and re-checks part *i* alone; anything else (a
crash, a death, an invalid part) re-checks every part alone. A failure no part shows alone is
still a finding, of the packed program, recorded for the first part's seed. Dedup, reduction and
reports see the part that fails, or that packed program: never a pass hidden in a pack.

Only plain generated programs are packed: a ``Model`` class with ``get_inputs()``, no call
sequence, keyword arguments, ``before_call`` or declared settings.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable
from typing import Any

from torchsmith.options import CheckOptions
from torchsmith.program.foreign_ast import Renamer
from torchsmith.program.format import (
    CHECK_OPTIONS,
    COMPILE_CONFIG,
    COMPILE_KWARGS,
    Program,
    module_classes,
)
from torchsmith.verdict import CheckResult, Verdict

_UNPACKABLE = {
    "get_calls",
    "get_kwargs",
    "before_call",
    "inputs",
    COMPILE_KWARGS,
    COMPILE_CONFIG,
    CHECK_OPTIONS,
}
_PART = re.compile(r"^out\[(\d+)\]")
Check = Callable[[Program, CheckOptions, Any], CheckResult]


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def packable(program: Program) -> bool:
    """A plain generated program: ``Model`` class, ``get_inputs()``, nothing else to honour."""
    if program.origin != "generated" or program.model != "Model":
        return False
    try:
        tree = ast.parse(program.source)
    except SyntaxError:
        return False
    defined = _defined(tree)
    return (
        "Model" in module_classes(tree) and "get_inputs" in defined and not (defined & _UNPACKABLE)
    )


def pack(parts: list[Program], seed: int = 0) -> Program:
    """One canonical program holding ``parts`` (each :func:`packable`); see the module doc."""
    imports: dict[str, ast.stmt] = {}
    body: list[ast.stmt] = []
    init_lines, fwd_args, in_lines = [], [], []
    for i, part in enumerate(parts):
        tree = ast.parse(part.source)
        names = _defined(tree)
        renamer = Renamer({n: f"_p{i}_{n}" for n in names})
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                imports.setdefault(ast.unparse(node), node)
            elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                body.append(renamer.visit(node))
        init = f"_p{i}_get_init_inputs()" if "get_init_inputs" in names else "[]"
        init_lines.append(
            f"        torch.manual_seed(_SEED)\n        init = {init}\n"
            f"        self.p{i} = _p{i}_Model(**init) if isinstance(init, dict) else"
            f" _p{i}_Model(*init)"
        )
        fwd_args.append(f"a{i}")
        in_lines.append(f"    torch.manual_seed(_SEED)\n    a{i} = list(_p{i}_get_inputs())")
    head = "\n".join(ast.unparse(n) for n in imports.values())
    names_list = ", ".join(p.name for p in parts)
    text = (
        f"# Packed by torchsmith: {names_list}\n{head}\nimport torch\nimport torch.nn\n\n"
        f"_SEED = {seed}\n\n" + "\n\n".join(ast.unparse(n) for n in body) + "\n\n\n"
        "class Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        + "\n".join(init_lines)
        + f"\n\n    def forward(self, {', '.join(fwd_args)}):\n        return ("
        + "".join(f"self.p{i}(*a{i}), " for i in range(len(parts)))
        + ")\n\n\ndef get_inputs():\n"
        + "\n".join(in_lines)
        + f"\n    return [{', '.join(fwd_args)}]\n"
    )
    notes = ("packed=" + ",".join(p.name for p in parts),)
    return Program(
        source=text, model="Model", name="pack_" + parts[0].name, origin="generated", notes=notes
    )


def parts_of(result: CheckResult, k: int) -> set[int] | None:
    """The parts a packed wrong value was seen in (every failing ``out[i]``), or None when the
    failure is not a wrong value in the outputs (every part is then suspect)."""
    if not result.verdict.is_wrong_output:
        return None
    paths = result.evidence.get("failing_outputs") or [result.evidence.get("output", "")]
    found: set[int] = set()
    for path in paths:
        m = _PART.match(str(path))
        if not m or int(m.group(1)) >= k:
            return None
        found.add(int(m.group(1)))
    return found or None


def _passed(packed: CheckResult, part: Program, k: int, parts: list[str]) -> CheckResult:
    timings = {key: round(v / k, 4) for key, v in packed.timings.items()}
    reason = f"passed packed with {k - 1} other program(s)"
    evidence = {"packed_with": parts, "graphs": packed.evidence.get("graphs")}
    res = CheckResult(Verdict.PASS, None, reason, evidence, timings=timings)
    res.program, res.digest, res.options = part.name, part.digest, packed.options
    return res


def check_packed(
    parts: list[Program], options: CheckOptions, worker: Any, check: Check
) -> list[tuple[Program, CheckResult]]:
    """Each part with its verdict, from one packed check and as few alone as attribution needs
    (``check(program, options, worker)`` is :func:`torchsmith.check.check_program`)."""
    k = len(parts)
    names = [p.name for p in parts]
    packed_program = pack(parts, options.seed)
    packed = check(packed_program, options, worker)
    if packed.verdict is Verdict.PASS:
        return [(p, _passed(packed, p, k, names)) for p in parts]
    suspects = parts_of(packed, k)
    out: list[tuple[Program, CheckResult]] = []
    for i, part in enumerate(parts):
        if suspects is not None and i not in suspects:
            out.append((part, _passed(packed, part, k, names)))
        else:
            out.append((part, check(part, options, worker)))
    if packed.is_bug and not any(r.is_bug for _, r in out):
        packed.evidence["only_packed"] = names  # no part fails alone: the pack is the finding
        index = min(suspects) if suspects else 0
        note = f"recorded for {parts[index].name}"
        program = dataclasses.replace(packed_program, notes=(*packed_program.notes, note))
        out[index] = (program, packed)
    return out
