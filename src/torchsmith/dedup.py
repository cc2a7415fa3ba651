"""Root-cause signatures: findings with one signature are one bug.

* crash: symptom, stage, exception type, the message's first meaningful line with addresses,
  numbers, shapes, paths, hashes and generated names (buffers, kernels, Dynamo sources, symbols)
  normalized away, and the innermost frame inside ``torch/`` as ``module.function`` (no line
  number: lines move between versions);
* died / timeout: symptom, stage, the signal, exit code or ``memory``, and the innermost torch
  frame of the faulthandler dump in the worker log when there is one;
* mismatch family: symptom, stage and the sorted set of ops the model's code uses (from its
  source, canonical names: ``F.relu``, ``nn.ReLU``, ``torch.relu`` and ``x.relu()`` are all
  ``relu``), which reduction later narrows to the ops that matter (``Store.set_bug_signature``);
  at the Dynamo stage also the Python constructs it uses (``py:format,itertools.repeat(times=)``,
  :mod:`torchsmith.program.constructs`), the cause there.

A failure outside the compiled phases (a segfault or hang in eager: PyTorch's or the program's
fault, not torch.compile's) carries the phase where the stage would be.

Signatures are short readable strings (``exception|inductor|InductorError|<msg>|<frame>``),
hashed to ``sig-<12 hex>`` for file names and the store; the readable form is kept next to it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from torchsmith import ddguard
from torchsmith.program.constructs import python_constructs
from torchsmith.program.format import Program
from torchsmith.program.ops import output_ops, source_ops
from torchsmith.verdict import COMPILER_PHASES, CheckResult, Verdict

MAX_MESSAGE = 200

_NORMALIZERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    # where Python's recursion limit hit is incidental ("... in comparison", "... while
    # calling a Python object"): one runaway recursion, whichever frame reached the limit
    (re.compile(r"(maximum recursion depth exceeded)\b.*"), r"\1"),
    # Inductor's make_fallback on an op that has a decomposition: the op is whichever the
    # reused subgraph holds (a region used as a cond branch: roll, clamp, gelu alike)
    (re.compile(r"(both a fallback and a decomp for same op:) aten\.[\w.]+"), r"\1 <op>"),
    # quoted file names first, so the path rule below does not leave the quotes dangling
    (re.compile(r"""File "[^"]*", line \d+"""), "File <path>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.\-+@~]+){2,}(?::\d+)?"), "<path>"),
    (re.compile(r"\b[\w\-]+\.(?:py|cpp|h|so|cu|o|pt2?|json)(?::\d+)?\b"), "<path>"),
    (re.compile(r"\b[0-9a-fA-F]{16,}\b"), "<hash>"),
    (re.compile(r"\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{24,}\b"), "<hash>"),  # base32 keys
    # Dynamo sources and guards: L['x'], G['w'], L['self'].fc1.weight
    (re.compile(r"\b([LG])\[['\"][^'\"]*['\"]\](?:\.\w+\b(?!\()|\[\d+\])*"), r"\1[<src>]"),
    # Inductor kernels and graph-module names
    (re.compile(r"\b(?:cpp|triton|kernel|cuda|mps|halide)_\w*?_\d+\b"), "<kernel>"),
    (re.compile(r"\bkernel_cpp_\d+\b"), "<kernel>"),
    (
        re.compile(
            r"\b(?:buf|tmp|arg|primals_|tangents_|getitem_|_tensor_constant|var_|zuf|x|ps|"
            r"r|s|u|q|ks|tmp_acc|acc|out_ptr|in_ptr|in_out_ptr|L__self___)\d+(?:_\d+)*\b"
        ),
        "<name>",
    ),
    (re.compile(r"\bline \d+\b"), "line <n>"),
    (re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])"), "<n>"),
    (re.compile(r"\binf\b|\bnan\b"), "<n>"),
    # shapes and size lists of any rank: [<n>, <n>], (<n>, <name>), torch.Size([..])
    (re.compile(r"([\[(])\s*<(?:n|name)>(?:\s*,\s*<(?:n|name)>)*\s*,?\s*([\])])"), r"\1<dims>\2"),
    (re.compile(r"'[^']{24,}'"), "'<str>'"),
    (re.compile(r'"[^"]{24,}"'), '"<str>"'),
    (re.compile(r"\s+"), " "),
]

#: First lines that only introduce the real message (Dynamo's wrapper, logging boilerplate).
_LEAD_INS = re.compile(
    r"^(?:backend=['\"][^'\"]*['\"] raised:|Traceback \(most recent call last\)|"
    r"While executing|Original traceback|Set TORCH|You can suppress|from user code|"
    r"Error while|Exception raised from|\[\d+/\d+\])",
    re.IGNORECASE,
)


#: Dynamo's wrapper around an op's own error in its fake-tensor run: 2.13 writes
#: ``...fake tensors: call_function <fn>(*(...), **{...}): got RuntimeError('inner')``, 2.6 writes
#: ``Failed running call_function <fn>(*(...), **{...}):`` with the inner message on the next line.
_FAKE_CALL = re.compile(
    r"(?:Failed running|Dynamo failed to run FX node with fake tensors:)\s*"
    r"call_(?:function|method|module)\s+(<[^>]*>|[\w.]+)\(.*?\*\*\{.*?\}\):"
    r"\s*(?:got \w+\((['\"])(?P<got>.*?)\2\)|(?P<next>[^\n]*))",
    re.S,
)
_CALLEE = re.compile(r"(?:function|method|built-in \w+)\s+'?([\w.]+)'?|^([\w.]+)$")


#: The compiler's own first error in a ``CppCompileError`` (whose first line says only
#: "C++ compile error", the same for every cause).
_CPP_ERROR = re.compile(r"^[^\n]*?\berror:\s*(.+)$", re.M)


def unwrap_message(message: str) -> str:
    """The op and the inner error of Dynamo's generic fake-tensor wrapper
    (``fake tensor call to mm: a and b must have ...``), the compiler's first error of a C++
    compile error (``C++ compile error: no matching function for call to ...``), the torch site
    of a data-dependent guard (``data-dependent guard in _refs/__init__.py in logsumexp``), the
    graph break behind Dynamo's "doesn't work unless it is captured completely" wrapper, with
    the function it refused (``uncaptured higher-order op: Attempted to inline function marked as
    skipped (_LazyGraphModule._lazy_forward)``: the op itself is left out, since one refusal of
    a subgraph's function breaks ``cond`` and ``map`` alike); any other message unchanged.

    Invariant: the result does not depend on the torch release's wrapper wording, so the same
    inner failure keys alike on 2.6 and 2.13, and different inner failures key apart."""
    if (dde_site := ddguard.site(message)) is not None:
        return dde_site
    if (uncaptured := _UNCAPTURED.search(message)) is not None:
        skipped = _SKIPPED_FN.search(message)
        where = f" ({skipped.group(1).rsplit('.<locals>.', 1)[-1]})" if skipped else ""
        return f"uncaptured higher-order op: {uncaptured.group(1).strip()}{where}"
    if any("C++ compile error" in line for line in message.split("\n", 3)[:3]):
        first = _CPP_ERROR.search(message.split("C++ compile error", 1)[1])
        return f"C++ compile error: {first.group(1).strip()}" if first else message
    m = _FAKE_CALL.search(message)
    if m is None:
        return message
    callee = _CALLEE.search(m.group(1).strip("<>"))
    name = next((g for g in callee.groups() if g), "") if callee else ""
    inner = (m.group("got") or m.group("next") or "").strip()
    # a C++ error's message goes on with its stack ("\nException raised from ...", escaped
    # inside the repr Dynamo writes): the message is what comes before
    inner = re.split(r"(?:\\n|\n)Exception raised from ", inner, maxsplit=1)[0].strip()
    return f"fake tensor call to {name.rsplit('.', 1)[-1]}: {inner}"


#: Dynamo's wrapper around a graph break inside a higher-order op's body, the break's first line.
_UNCAPTURED = re.compile(
    r"captured completely with torch\.compile\. Got graph break/error:\s*\n\s*(\S[^\n]*)"
)
_SKIPPED_FN = re.compile(r"the function `([^`]+)`")


def normalize_message(message: str) -> str:
    """The first meaningful line of an error message, with incidental detail replaced."""
    message = unwrap_message(message)
    line = ""
    for candidate in message.splitlines():
        candidate = candidate.strip()
        if candidate and not _LEAD_INS.match(candidate):
            line = candidate
            break
    line = _TYPE_LIST.sub(_sorted_types, line)
    for pattern, repl in _NORMALIZERS:
        line = pattern.sub(repl, line)
    return line.strip()[:MAX_MESSAGE]


#: A list of Python types in a message (``[<class 'torch.Tensor'>, <class 'torch.SymInt'>]``):
#: the operands' order is incidental (which argument the generator drew first), the types not.
_TYPE_LIST = re.compile(r"\[(<class '[\w.]+'>(?:, <class '[\w.]+'>)+)\]")


def _sorted_types(match: re.Match[str]) -> str:
    return "[" + ", ".join(sorted(set(match.group(1).split(", ")))) + "]"


# -- signatures -------------------------------------------------------------------------------------
_FAULT_FRAME = re.compile(r"""File "([^"]*[\\/]torch[\\/][^"]*)", line \d+ in (\w+)""")


def _frame(torch_frame: str) -> str:
    """``_inductor/output_code.py:763 in __call__`` -> ``output_code.__call__``."""
    if " in " not in torch_frame:
        return ""
    where, fn = torch_frame.rsplit(" in ", 1)
    module = re.split(r"[\\/]", where.split(":", 1)[0])[-1].removesuffix(".py")
    return f"{module}.{fn.strip()}" if module else fn.strip()


#: Python's stock messages (normalized): they name no torch concept, so a crash with one is one
#: cause only at one innermost frame ("list index out of range" from the auto-chunker and from
#: Dynamo's guard building are two bugs; "tuple index out of range" from `len` of a 0-d tensor
#: and from `len()` without an argument too).
_STOCK_MESSAGE = re.compile(
    r"(list|tuple|string|range object) index out of range|(not enough|too many) values to "
    r"unpack.*|pop from empty \w+|.*division by zero|.*modulo by zero|maximum recursion depth.*"
    r"|(max|min)\(\) (arg|iterable argument) is (an )?empty.*|'?<n>'?|"
)


def is_stock_message(message: str) -> bool:
    """Whether a normalized message (its exception type stripped) is one of Python's own."""
    return _STOCK_MESSAGE.fullmatch(message.strip()) is not None


def crash_frame(result: CheckResult) -> str:
    """A crash's innermost torch frame as ``module.function`` (``""`` when none is known)."""
    return _frame(str(result.evidence.get("torch_frame") or ""))


def fault_frame(log_tail: str) -> str:
    """The innermost torch frame of a faulthandler dump (most recent call first), or ``""``."""
    for match in _FAULT_FRAME.finditer(log_tail):
        path, fn = match.groups()
        return _frame(f"{path.split('/torch/', 1)[-1]} in {fn}")
    return ""


def _where(result: CheckResult) -> str:
    if result.phase is not None and result.phase not in COMPILER_PHASES:
        return result.phase.value  # not torch.compile's: eager, fp64 or load
    return result.stage.value if result.stage else "unknown"


def failure_key(result: CheckResult) -> tuple[str, ...]:
    """What makes two failures *the same failure*, apart from stage and program: the one key
    dedup signs with and reduction keeps (a candidate that changes it has drifted).

    * a crash: its exception type (the root cause's, where Dynamo wraps it) and normalized
      message; a death: its signal, ``exit<code>`` or ``memory``; a hang: ``timeout``;
    * a wrong output: the verdict, the kind of evidence (``non-float`` flips, ``same-vs-fp64``,
      ``same-without-fp64``, ``python-value``) and whether forward outputs or gradients.
    """
    v, ev = result.verdict, result.evidence
    if v is Verdict.CRASH:
        exc = str(ev.get("root_type") or ev.get("exc_type") or "Exception").rsplit(".", 1)[-1]
        return (v.value, exc, normalize_message(str(ev.get("message", ""))))
    if v.is_process_failure and v is not Verdict.TIMEOUT:
        exc = (
            "memory"
            if ev.get("memory_exceeded")
            else ev.get("signal") or f"exit{ev.get('returncode')}"
        )
        return (v.value, str(exc), "")
    if v is Verdict.TIMEOUT:
        return (v.value, "timeout", "")
    where = "grad" if str(ev.get("output", "")).startswith("grad") else "out"
    if v is Verdict.META_MISMATCH:  # strides only, or shape / dtype / structure
        return (v.value, "strides" if ev.get("kind") == "strides" else "meta", where)
    if v is Verdict.MISMATCH:
        figs = ev.get("figures") or {}
        if "differ" in ev:
            kind = "non-float"
        elif "compiled_vs_fp64" in figs:
            kind = "same-vs-fp64"
        elif figs:
            kind = "same-without-fp64"
        else:
            kind = "python-value"
        return (v.value, kind, where)
    return (v.value, where)


#: Exceptions torch raises around another: the inner type and message lead their message
#: (``LoweringException`` too: the same error raised inside a lowering or outside one).
WRAPPERS = frozenset({"BackendCompilerFailed", "InductorError", "LoweringException"})


def unwrap_failure(kind: str, message: str) -> tuple[str, str]:
    """A crash's exception type and normalized message with the wrappers' layers peeled
    (``InductorError`` + ``LoweringException: KeyError: m`` is ``KeyError`` + ``m``).

    Invariant: one inner failure gives one pair whichever wrappers carry it, so the
    decomposition rung's ``RuntimeError: m`` and Inductor's ``BackendCompilerFailed`` around
    it are the same failure."""
    while kind in WRAPPERS and ": " in message:
        kind, message = message.split(": ", 1)
    return kind, message


def same_failure_key(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two :func:`failure_key` values name the same failure, wrappers looked through."""
    if a == b:
        return True
    if len(a) == len(b) == 3 and a[0] == b[0] == Verdict.CRASH.value:
        return unwrap_failure(a[1], a[2]) == unwrap_failure(b[1], b[2])
    return False


#: The field of a Dynamo-stage wrong output's signature that lists its Python constructs.
PY_FIELD = "py:"


def readable_signature(result: CheckResult, program: Program | None = None) -> str:
    """The signature in words: ``symptom|stage|...`` (see the module docstring): for a crash,
    death or hang the :func:`failure_key`'s detail and the innermost torch frame; for a wrong
    output the ops that compute the failing output."""
    v = result.verdict
    symptom = result.symptom.value if result.symptom else v.value
    where = _where(result)
    if v.is_behaviour:
        _, what, message = failure_key(result)
        if v is Verdict.CRASH:
            frame = _frame(str(result.evidence.get("torch_frame") or ""))
        else:
            frame = fault_frame(result.log_tail) if v is not Verdict.TIMEOUT else ""
        return "|".join([symptom, where, what, message, frame])
    ops: list[str] | None = None
    output = str(result.evidence.get("output") or "")
    if program is not None and output and program.origin != "script":
        ops = output_ops(program.source, program.model, output)
    if ops is None:
        ops = source_ops(program.source) if program is not None else []
    fields = [symptom, where, ",".join(ops)]
    if where == "dynamo" and program is not None:
        # Dynamo's wrong outputs come from how it simulates Python: the constructs sign them
        if constructs := python_constructs(program.source):
            fields.append(PY_FIELD + ",".join(constructs))
    return "|".join(fields)


def hash_signature(readable: str) -> str:
    """``sig-<12 hex>`` of a readable signature."""
    return "sig-" + hashlib.sha256(readable.encode()).hexdigest()[:12]


def signature(result: CheckResult, program: Program | None = None) -> str:
    """``sig-<12 hex>`` of the readable signature."""
    return hash_signature(readable_signature(result, program))


def load_known(path: str | Path) -> set[str]:
    """Known signatures, one per line (``sig-...`` or readable form); ``#`` starts a comment.

    A readable signature may itself contain ``#`` only after a ``|``-separated field, so only a
    ``#`` at the start of a line or after whitespace starts a comment.
    """
    known: set[str] = set()
    for line in Path(path).read_text().splitlines():
        line = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()
        if line:
            known.add(line)
    return known


def is_known(sig: str, readable: str, known: set[str] | frozenset[str]) -> bool:
    return sig in known or readable in known
