"""Root-cause signatures: findings with one signature are one bug.

* crash / died / timeout: symptom, stage, exception type, the message's first line with
  addresses, numbers, paths, hashes and generated names normalized away, and the innermost frame
  inside ``torch/`` (function name only, no line number: lines move between versions);
* mismatch family: symptom, stage and the sorted set of ops the program uses (from its source),
  which reduction later narrows to the ops that matter.

Signatures are short, stable strings (``crash|inductor|InductorError|<msg>|<frame>``), hashed to
``sig-<12 hex>`` for file names; the readable form is kept next to it.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from torchsmith.program.format import Program, dotted_name
from torchsmith.verdict import CheckResult, Verdict

_NORMALIZERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    (re.compile(r"(?:/[\w.\-+]+)+(?:\.\w+)?"), "<path>"),
    (re.compile(r"\b[0-9a-f]{16,}\b"), "<hash>"),
    (re.compile(r"\b(?:buf|tmp|arg|primals_|tangents_|getitem_|x|v|s|u|zuf|var_)\d+\w*"), "<name>"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b"), "<n>"),
    (re.compile(r"'[^']{24,}'"), "'<str>'"),
    (re.compile(r"\s+"), " "),
]

_CRASH_KINDS = {Verdict.CRASH, Verdict.DIED, Verdict.TIMEOUT}


def normalize_message(message: str) -> str:
    """The first meaningful line of an error message, with incidental detail replaced."""
    line = ""
    for candidate in message.splitlines():
        if candidate.strip():
            line = candidate.strip()
            break
    for pattern, repl in _NORMALIZERS:
        line = pattern.sub(repl, line)
    return line[:200]


def program_ops(source: str) -> list[str]:
    """The torch ops a program's source calls: ``torch.relu``, ``F.pad``, ``nn.Conv2d``,
    ``Tensor.view`` (method calls on values), sorted and de-duplicated."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    ops: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = dotted_name(node.func)
        if not name:
            continue
        head = name.split(".")[0]
        if head in {"torch", "F", "nn"}:
            if name.startswith("torch.nn.functional."):
                name = "F." + name.rsplit(".", 1)[-1]
            elif name.startswith("torch.nn."):
                name = "nn." + name.rsplit(".", 1)[-1]
            if name in {"torch.manual_seed", "torch.Generator", "torch.randn", "torch.rand"}:
                continue
            ops.add(name)
        elif isinstance(node.func, ast.Attribute) and head not in {"self", "super"}:
            ops.add("Tensor." + node.func.attr)
    ops.discard("Tensor.manual_seed")
    return sorted(ops)


def readable_signature(result: CheckResult, program: Program | None = None) -> str:
    v = result.verdict
    stage = result.stage.value if result.stage else "unknown"
    symptom = result.symptom.value if result.symptom else v.value
    if v in _CRASH_KINDS:
        ev = result.evidence
        exc = str(ev.get("root_type") or ev.get("exc_type") or ev.get("signal") or v.value)
        exc = exc.rsplit(".", 1)[-1]
        if v is Verdict.DIED:
            exc = ev.get("signal") or (
                "memory" if ev.get("memory_exceeded") else f"exit{ev.get('returncode')}"
            )
        msg = normalize_message(str(ev.get("message", ""))) if v is Verdict.CRASH else ""
        frame = str(ev.get("torch_frame") or "")
        frame = frame.rsplit(" in ", 1)[-1] if " in " in frame else ""
        return "|".join([symptom, stage, exc, msg, frame])
    ops = program_ops(program.source) if program is not None else []
    return "|".join([symptom, stage, ",".join(ops)])


def signature(result: CheckResult, program: Program | None = None) -> str:
    """``sig-<12 hex>`` of the readable signature."""
    text = readable_signature(result, program)
    return "sig-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def load_known(path: str | Path) -> set[str]:
    """Known signatures, one per line (``sig-...`` or readable form); ``#`` starts a comment."""
    known: set[str] = set()
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            known.add(line)
    return known
