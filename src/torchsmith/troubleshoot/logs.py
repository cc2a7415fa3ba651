"""``logs``: one compiled run with chosen TORCH_LOGS components and artifacts captured, grouped by
the step of compilation each message belongs to.

Dynamo announces the steps of a compile on its INFO log (the guide's "Step #" lines)::

    Step 1: torchdynamo start tracing forward ... / Step 1: torchdynamo done tracing forward
    Step 2: calling compiler function inductor    / Step 2: done compiler function inductor
    Step 3: torchinductor compiling FORWARDS graph 0 / Step 3: torchinductor done compiling ...

Each captured message goes into the innermost step open when it was logged, within its compile
id (``0/0``: frame 0, first compile; ``0/0_1``: its second attempt after Dynamo restarted
the analysis); messages outside any step land in ``guards and setup``
(before the first step and after the last one of a compile: guards, cache lookups) or ``run``
(no compile id: what happens when the compiled code runs). When the run raises, the step that
was open (begun, not done) is named: the guide's rule for finding the failing component. The
step markers are always captured (``dynamo`` at INFO), whatever ``--what`` asks for.

``--what`` takes TORCH_LOGS names: components (``dynamo``, ``aot``, ``inductor``, ``dynamic``,
...; ``+dynamo`` for DEBUG, ``-dynamo`` for ERROR) and artifacts (``graph_breaks``,
``recompiles``, ``guards``, ``graph_code``, ``aot_graphs``, ``output_code``, ``schedule``,
``fusion``, ``bytecode``, ``trace_bytecode``, ...); the worker checks them against torch's registry.

Report (``--json``, schema 1)::

    {"schema": 1, "program", "backend", "only", "what": [str],
     "sections": [{"compile_id", "step", "title", "status" (done|open|restarted|none),
                   "records": [{"logger", "artifact", "level", "message"}]}],
     "record_count", "failed_step": null | {"compile_id", "step", "title"},
     "error": null | {"type", "message", "summary"}}
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from torchsmith.execute.worker import Worker
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.troubleshoot.common import (
    SCHEMA,
    ListHandler,
    LogRecord,
    exception_info,
    load_and_compile,
    load_error_result,
    run_job,
)

JOB = "torchsmith.troubleshoot.logs:logs_job"
DEFAULT_WHAT = ("dynamo", "aot", "inductor", "graph_breaks", "recompiles")

#: What the guide's steps are, by number (Dynamo's step logger counts 1, 2, 3).
STEP_NAMES = {1: "Dynamo", 2: "backend compiler (AOTAutograd + backend)", 3: "Inductor"}
_STEP_RE = re.compile(r"^Step (?P<n>\d+): (?P<text>.*)", re.S)
_DONE_RE = re.compile(r"\bdone\b")
_RESTART_RE = re.compile(r"^Restarting analysis")
_NAME_RE = re.compile(r"^[+-]?[A-Za-z_][A-Za-z0-9_.]*$")
LEVELS = {"": logging.INFO, "+": logging.DEBUG, "-": logging.ERROR}
SETUP, RUN = "guards and setup", "run"


# -- pure pieces (unit-tested) ----------------------------------------------------------------------
def parse_what(spec: str | list[str] | tuple[str, ...]) -> list[str]:
    """``"dynamo, +aot,graph_breaks"`` -> ``["dynamo", "+aot", "graph_breaks"]`` (order kept,
    duplicates dropped). Raises ValueError for a malformed name; whether torch knows the name
    is checked in the worker."""
    items = spec.split(",") if isinstance(spec, str) else [x for s in spec for x in s.split(",")]
    out: list[str] = []
    for raw in items:
        name = raw.strip()
        if not name:
            continue
        if not _NAME_RE.match(name):
            raise ValueError(f"--what: {name!r} is not a TORCH_LOGS name")
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("--what needs at least one TORCH_LOGS name, e.g. dynamo,graph_breaks")
    return out


def artifact_of(logger_name: str) -> str:
    """``torch._dynamo.guards.__guards`` -> ``guards``; a component logger gives its
    component (``torch._inductor.compile_fx`` -> ``inductor``)."""
    if ".__" in logger_name:
        return logger_name.rsplit(".__", 1)[1]
    parts = logger_name.split(".")
    comp = parts[1].lstrip("_") if len(parts) > 1 else parts[0]
    return {"functorch": "aot", "fx": "fx"}.get(comp, comp)


@dataclass
class Section:
    compile_id: str
    step: int | None
    title: str
    status: str = "none"  # done | open | none
    records: list[dict[str, Any]] = field(default_factory=list)


def _title(step: Any) -> str:
    if isinstance(step, int):
        return f"step {step}: {STEP_NAMES.get(step, f'step {step}')}"
    return str(step)


def group_by_step(records: list[LogRecord]) -> tuple[list[Section], dict[str, Any] | None]:
    """Sections in log order, and the step still open at the end (or None).

    A ``Step N: ...`` record opens step N of its compile id, ``Step N: ... done ...`` closes
    it (step 2 opening closes step 1: a graph break ends tracing without a "done"; Dynamo's
    "Restarting analysis" ends the attempt, status ``restarted``); other records go to the
    innermost open step of their compile id, else to ``guards and setup`` of that compile id,
    else (no compile id) to ``run``. Consecutive records with the same place share a section;
    a place met again later starts a new section (``(continued)``), so the order is the log's.
    Every section of a step carries that step's final status.
    """
    sections: list[Section] = []
    status: dict[tuple[str, Any], str] = {}
    open_steps: dict[str, list[int]] = {}

    def put(cid: str, step: Any, entry: dict[str, Any]) -> None:
        last = sections[-1] if sections else None
        if last is None or (last.compile_id, last.step if last.step else last.title) != (cid, step):
            seen = any(
                (s.compile_id, s.step if s.step else s.title) == (cid, step) for s in sections
            )
            title = _title(step) + (" (continued)" if seen else "")
            sections.append(Section(cid, step if isinstance(step, int) else None, title))
        sections[-1].records.append(entry)

    for r in records:
        cid = r.compile_id
        entry = {
            "logger": r.logger,
            "artifact": artifact_of(r.logger),
            "level": r.level,
            "message": r.message,
        }
        stack = open_steps.setdefault(cid, [])
        m = _STEP_RE.match(r.message)
        if m:
            n = int(m["n"])
            if _DONE_RE.search(m["text"]):
                put(cid, n, entry)
                if n in stack:
                    stack.remove(n)
                status[(cid, n)] = "done"
                continue
            if n == 2 and 1 in stack:  # a graph break ends tracing without "done tracing"
                stack.remove(1)
                status[(cid, 1)] = "done"
            if n not in stack:
                stack.append(n)
            status[(cid, n)] = "open"
            put(cid, n, entry)
            continue
        if stack:
            put(cid, stack[-1], entry)
            if _RESTART_RE.search(r.message):  # this attempt ends; Dynamo tries again
                for k in stack:
                    status[(cid, k)] = "restarted"
                stack.clear()
        elif cid:
            put(cid, SETUP, entry)
        else:
            put("", RUN, entry)
    for sec in sections:
        sec.status = status.get((sec.compile_id, sec.step), "none")
    failed = None
    for cid, stack in open_steps.items():
        if stack:
            n = stack[-1]
            failed = {"compile_id": cid, "step": n, "title": STEP_NAMES.get(n, f"step {n}")}
    return sections, failed


# -- in the worker ----------------------------------------------------------------------------------
def _settings(what: list[str]) -> dict[str, Any]:
    """``set_logs`` keyword arguments for the names; raises ValueError for unknown names."""
    from torch._logging._internal import log_registry

    kwargs: dict[str, Any] = {}
    unknown = []
    for name in what:
        sign = name[0] if name[0] in "+-" else ""
        bare = name[len(sign) :]
        if bare in log_registry.log_alias_to_log_qnames:
            kwargs[bare] = LEVELS[sign]
        elif bare in log_registry.artifact_names and not sign:
            kwargs[bare] = True
        else:
            unknown.append(name)
    if unknown:
        comps = ", ".join(sorted(log_registry.log_alias_to_log_qnames))
        raise ValueError(
            f"--what: unknown TORCH_LOGS name(s) {', '.join(unknown)}; components ({comps}) take"
            " + or -; artifacts: " + ", ".join(sorted(log_registry.artifact_names))
        )
    kwargs.setdefault("dynamo", logging.INFO)  # the step markers
    return kwargs


def logs_job(program: Program, options: CheckOptions, emit_phase: Any, what: list[str]) -> dict:
    """The ``call`` job behind ``torchsmith logs`` (see the module docstring)."""
    import torch
    from torch._logging._internal import log_registry

    from torchsmith.oracle import runtime

    try:
        settings = _settings(what)
    except ValueError as e:
        return {"schema": SCHEMA, "usage_error": str(e)}
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "program": program.name,
        "backend": options.backend,
        "only": options.only,
        "what": what,
        "error": None,
    }
    dtype = runtime.resolve_dtype(options.dtype)
    records: list[LogRecord] = []
    with runtime.compiler_config(options):
        try:
            loaded, _, args, compiled = load_and_compile(program, options, dtype, emit_phase)
        except runtime.ProgramLoadError as e:
            return load_error_result(e)
        handler = ListHandler(records)
        loggers = [logging.getLogger(q) for q in sorted(log_registry.get_log_qnames())]
        torch._logging.set_logs(**settings)
        for lg in loggers:
            lg.addHandler(handler)
        try:
            with torch.set_grad_enabled(options.grad):
                compiled(*args, **loaded.calls[0].kwargs)
        except Exception as e:  # the log says how far the compile got
            report["error"] = exception_info(e)
        finally:
            for lg in loggers:
                lg.removeHandler(handler)
            torch._logging.set_logs()
    sections, failed = group_by_step(records)
    report["sections"] = [s.__dict__ for s in sections]
    report["record_count"] = len(records)
    report["failed_step"] = failed if report["error"] else None
    return report


# -- in the parent ----------------------------------------------------------------------------------
def logs_program(
    program: Program,
    what: list[str] | tuple[str, ...] = DEFAULT_WHAT,
    options: CheckOptions | None = None,
    worker: Worker | None = None,
) -> dict[str, Any]:
    """The grouped log report of one compiled run of ``program`` (see the module docstring).

    Raises ValueError for names torch does not know, and
    :class:`~torchsmith.troubleshoot.common.TroubleshootError` when the program does not load,
    hangs or kills the worker; a compiled run that raises is in ``error``.
    """
    report = run_job(JOB, program, options or CheckOptions(), worker, what=list(what))
    if report.get("usage_error"):
        raise ValueError(report["usage_error"])
    return report


def format_logs(report: dict[str, Any], max_lines: int | None = 40) -> str:
    """The human view: one block per (compile id, step), each message indented under it.

    ``max_lines`` cuts long messages (generated code, graphs); None keeps them whole."""
    only = f", only {report['only']}" if report.get("only") else ""
    out = [
        f"{report['program']}: {report['record_count']} log records"
        f" ({', '.join(report['what'])}; backend {report['backend']}{only})"
    ]
    for sec in report["sections"]:
        cid = f"[{sec['compile_id']}] " if sec["compile_id"] else ""
        title = sec["title"] or (f"step {sec['step']}" if sec["step"] else "")
        status = "" if sec["status"] == "none" else f" ({sec['status']})"
        out += ["", f"== {cid}{title}{status} =="]
        for rec in sec["records"]:
            lines = rec["message"].rstrip().splitlines() or [""]
            cut = max_lines is not None and len(lines) > max_lines
            shown = lines[:max_lines] if cut else lines
            out.append(f"  [{rec['artifact']}] {shown[0]}")
            out += [f"      {ln}" for ln in shown[1:]]
            if cut:
                out.append(f"      ... ({len(lines) - len(shown)} more lines; --full shows all)")
    if report.get("error"):
        e = report["error"]
        out += ["", f"compiled run raised {e['type']}: {e['summary']}"]
        f = report.get("failed_step")
        if f:
            out.append(
                f"it failed in step {f['step']} ({f['title']}) of compile {f['compile_id']}:"
                " the last step begun and not done"
            )
    return "\n".join(out)
