"""``explain``: the graphs Dynamo captured, where and why they break, the ops in each, compile times.

The compiled run uses PyTorch's own explain machinery as a composable backend
(``torch._dynamo.backends.debugging.ExplainWithBackend``, what ``torch._dynamo.explain`` records)
around the requested backend, so ``--backend``, ``--mode``, ``--dynamic`` and ``--config`` all
apply. The ``graph_breaks`` log (``TORCH_LOGS=graph_breaks``) is captured at the same time: it
carries the stable graph-break type, explanation, hints and documentation link that the bare
explain reasons lack (``generic_jump TensorVariable()`` vs ``Data-dependent branching``).

Report (``--json``, schema 1)::

    {"schema": 1, "program", "backend", "mode", "dynamic", "fullgraph",
     "graph_count", "graph_break_count", "op_count",
     "graphs": [{"index", "ops": [str], "op_count", "ends_with", "code"}],
     "breaks": [{"index", "graph", "file", "line", "function", "code", "gb_type", "gb_id",
                 "explanation", "hints": [str], "url", "reason"}],
     "compile_times": {"stages": {label: s}, "all": {dynamo_timed name: s}, "first_call_s": s},
     "error": null | {"type", "message", "summary"}}
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from torchsmith.execute.worker import Worker
from torchsmith.options import CheckOptions
from torchsmith.oracle import compile_times
from torchsmith.oracle.compile_times import stage_times
from torchsmith.program.format import Program
from torchsmith.troubleshoot.common import (
    SCHEMA,
    capture_logs,
    clean_function_name,
    compile_target,
    exception_info,
    load_error_result,
    report_header,
    run_job,
    short_path,
    source_line,
    table,
)

JOB = "torchsmith.troubleshoot.explain:explain_job"

_AT_RE = re.compile(r"Graph break in user code at (?P<file>.+):(?P<line>\d+)\s*$", re.M)
_URL_RE = re.compile(r"(?P<url>https?://\S+/(?P<id>gb\d+)\.html)")
_FRAME_RE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)')


# -- parsing (pure; unit-tested) ------------------------------------------------------------------
def _reason_fields(text: str) -> dict[str, Any]:
    """Break type, explanation, hints and docs link of one graph-break reason text."""
    lines = text.splitlines()
    expl_at = next((i for i, ln in enumerate(lines) if ln.strip().startswith("Explanation:")), None)
    if expl_at is None:
        gb_type = next((ln.strip() for ln in lines if ln.strip()), "")
        explanation = ""
    else:
        gb_type = next((ln.strip() for ln in reversed(lines[:expl_at]) if ln.strip()), "")
        parts = [lines[expl_at].strip().removeprefix("Explanation:").strip()]
        for ln in lines[expl_at + 1 :]:
            s = ln.strip()
            if not s or s.startswith(("Hint:", "Developer debug context:")):
                break
            parts.append(s)
        explanation = " ".join(parts)
    hints = [
        ln.strip().removeprefix("Hint:").strip() for ln in lines if ln.strip().startswith("Hint:")
    ]
    url = _URL_RE.search(text)
    return {
        "gb_type": gb_type.rstrip(":"),
        "explanation": explanation,
        "hints": hints,
        "url": url["url"] if url else None,
        "gb_id": url["id"] if url else None,
    }


def _frames(text: str) -> list[dict[str, Any]]:
    return [
        {"file": m["file"], "line": int(m["line"]), "function": m["fn"]}
        for m in _FRAME_RE.finditer(text)
    ]


def parse_graph_break_log(message: str) -> dict[str, Any] | None:
    """Fields of one ``graph_breaks`` log message, or None when it is not one.

    Tolerates the older one-line ``Graph Break Reason: ...`` form (no explanation or hints).
    """
    at = _AT_RE.search(message)
    if at is None:
        return None
    head, _, trace = message.partition("User code traceback:")
    body = head.split("Graph Break Reason:", 1)[1] if "Graph Break Reason:" in head else ""
    return {
        "file": at["file"],
        "line": int(at["line"]),
        **_reason_fields(body),
        "frames": _frames(trace),
    }


def parse_unsupported(message: str) -> dict[str, Any] | None:
    """The break an ``Unsupported`` exception describes (``fullgraph=True`` raises at the first
    break) in the same fields as :func:`parse_graph_break_log`, or None without a user frame."""
    body, sep, trace = message.partition("from user code:")
    frames = _frames(trace) if sep else []
    if not frames:
        return None
    return {
        "file": frames[-1]["file"],
        "line": frames[-1]["line"],
        **_reason_fields(body),
        "frames": frames,
    }


def op_name(op: str, target: Any) -> str:
    """A readable name for an FX node's target: ``torch.relu``, ``Tensor.sum``, ``aten.add.Tensor``."""
    if op == "call_method":
        return f"Tensor.{target}"
    if op == "call_module":
        return f"self.{target}"
    if type(target).__name__ in ("OpOverload", "OpOverloadPacket"):
        return str(target)
    name = getattr(target, "__name__", None) or repr(target)
    module = getattr(target, "__module__", None) or ""
    module = {"_operator": "operator", "builtins": ""}.get(module, module)
    return f"{module}.{name}" if module else name


# -- in the worker --------------------------------------------------------------------------------
def _backend(options: CheckOptions) -> Any:
    """The backend callable ``torch.compile`` would build, so ``mode`` still applies."""
    import torch

    if options.backend == "inductor" and hasattr(torch, "_TorchCompileInductorWrapper"):
        return torch._TorchCompileInductorWrapper(options.mode, None, options.dynamic)
    return options.backend


def _reset_compile_stats() -> None:
    import torch._dynamo.utils as du

    du.compilation_time_metrics.clear()
    reset_dups = getattr(du, "reset_graph_break_dup_checker", None)
    if reset_dups is not None:  # a second run of the same break would not be logged again
        reset_dups()


def _compile_times() -> dict[str, float]:
    return compile_times.metrics()


def _break_from_reason(reason: Any, program: Program, pfile: str) -> dict[str, Any]:
    stack = list(getattr(reason, "user_stack", None) or [])
    frame = next((f for f in reversed(stack) if f.filename == pfile), stack[-1] if stack else None)
    text = str(getattr(reason, "reason", reason))
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    url = _URL_RE.search(text)
    return {
        "file": frame.filename if frame else None,
        "line": frame.lineno if frame else None,
        "function": clean_function_name(frame.name) if frame else None,
        "gb_type": first,
        "gb_id": url["id"] if url else None,
        "explanation": "",
        "hints": [],
        "url": url["url"] if url else None,
        "reason": first,
    }


def _merge_breaks(
    logged: list[dict[str, Any]],
    reasons: list[tuple[int, Any]],
    program: Program,
    pfile: str,
) -> list[dict[str, Any]]:
    """One entry per break: the log's (richer) entries first, then explain-only ones."""
    from_explain = [(g, _break_from_reason(r, program, pfile)) for g, r in reasons]
    out: list[dict[str, Any]] = []
    for entry in logged:
        entry = dict(entry)
        frames = entry.pop("frames", [])
        mine = [f for f in frames if f["file"] == entry["file"]]
        entry["function"] = clean_function_name(mine[-1]["function"]) if mine else None
        entry["graph"] = None
        entry["reason"] = entry["gb_type"]
        for k, (g, ex) in enumerate(from_explain):
            if (ex["file"], ex["line"]) == (entry["file"], entry["line"]):
                entry["graph"], entry["reason"] = g, ex["reason"]
                entry["function"] = entry["function"] or ex["function"]
                del from_explain[k]
                break
        out.append(entry)
    out += [{**ex, "graph": g} for g, ex in from_explain]
    for i, entry in enumerate(out, 1):
        entry["index"] = i
        entry["code"] = source_line(program, entry["file"] or "", entry["line"], pfile)
    return out


def explain_run(
    program: Program, options: CheckOptions, emit: Callable[[Any], None]
) -> tuple[dict[str, Any], list[Any]]:
    """Load, compile and run ``program`` once, recording graphs and breaks (in a worker).

    Returns the report and the captured ``GraphModule`` objects (``debug`` writes them out).
    Raises :class:`~torchsmith.oracle.runtime.ProgramLoadError` when the program does not load.
    """
    import torch
    from torch._dynamo.backends.debugging import ExplainWithBackend

    from torchsmith.oracle import runtime
    from torchsmith.verdict import Phase

    report = report_header(SCHEMA, program, options, "mode", "dynamic", "fullgraph")
    dtype = runtime.resolve_dtype(options.dtype)
    with runtime.compiler_config(options):
        emit(Phase.LOAD)
        loaded = runtime.load(program, options.seed)
        model = runtime.build_model(loaded, options.seed, options.device, dtype)
        inputs = runtime.prepare_inputs(loaded.inputs, options.device, dtype, grad=options.grad)
        recorder = ExplainWithBackend(_backend(options))
        kwargs = {k: v for k, v in options.compile_kwargs().items() if k not in ("backend", "mode")}
        compiled = compile_target(loaded, model, options, backend=recorder, **kwargs)
        _reset_compile_stats()
        emit(Phase.COMPILED)
        runtime.seed_everything(options.seed)
        t0 = time.perf_counter()
        raised: dict[str, Any] | None = None
        with capture_logs(graph_breaks=True) as records:
            try:
                with torch.set_grad_enabled(options.grad):
                    compiled(*inputs)
            except Exception as e:  # the report says what was captured before it raised
                report["error"] = exception_info(e)
                if isinstance(e, torch._dynamo.exc.Unsupported):
                    raised = parse_unsupported(str(e))
        first_call = time.perf_counter() - t0
    graphs = list(recorder.graphs)
    pfile = loaded.filename
    logged = [p for r in records if (p := parse_graph_break_log(r.message)) is not None]
    if raised is not None:
        logged.append(raised)
    reasons = [
        (i, gm.compile_subgraph_reason)
        for i, gm in enumerate(graphs)
        if getattr(getattr(gm, "compile_subgraph_reason", None), "graph_break", False)
    ]
    breaks = _merge_breaks(logged, reasons, program, pfile)
    report["graphs"] = []
    for i, gm in enumerate(graphs):
        ops = [
            op_name(n.op, n.target)
            for n in gm.graph.nodes
            if n.op in ("call_function", "call_method", "call_module")
        ]
        why = getattr(gm, "compile_subgraph_reason", None)
        report["graphs"].append(
            {
                "index": i,
                "ops": ops,
                "op_count": len(ops),
                "ends_with": "graph break" if getattr(why, "graph_break", False) else "return",
                "code": gm.code.strip(),
            }
        )
    report["graph_count"] = len(graphs)
    report["graph_break_count"] = len(breaks)
    report["op_count"] = sum(g["op_count"] for g in report["graphs"])
    report["breaks"] = breaks
    times = _compile_times()
    report["compile_times"] = {
        "stages": stage_times(times),
        "all": times,
        "first_call_s": round(first_call, 4),
    }
    return report, graphs


def explain_job(program: Program, options: CheckOptions, emit_phase: Any) -> dict[str, Any]:
    """The ``call`` job behind ``torchsmith explain``."""
    from torchsmith.oracle.runtime import ProgramLoadError

    try:
        report, _ = explain_run(program, options, emit_phase)
    except ProgramLoadError as e:
        return load_error_result(e)
    return report


# -- in the parent --------------------------------------------------------------------------------
def explain_program(
    program: Program, options: CheckOptions | None = None, worker: Worker | None = None
) -> dict[str, Any]:
    """The explain report for ``program`` (see the module docstring), computed in a worker.

    Raises :class:`~torchsmith.troubleshoot.common.TroubleshootError` when the program does not
    load, hangs or kills the worker. A compiled run that raises is reported in ``error``.
    """
    return run_job(JOB, program, options or CheckOptions(), worker)


def format_breaks(breaks: list[dict[str, Any]], detail: bool = True) -> list[str]:
    lines: list[str] = []
    for b in breaks:
        where = f"{short_path(b['file'] or '?')}:{b['line']}"
        fn = f" in {b['function']}" if b.get("function") else ""
        lines.append(f"  {b['index']}. {where}{fn}: {b['gb_type'] or b.get('reason') or '?'}")
        if b.get("code"):
            lines.append(f"       {b['code']}")
        if detail and b.get("explanation"):
            lines.append(f"       why: {b['explanation'][:300]}")
        if detail and b.get("hints"):
            lines.append(f"       hint: {b['hints'][0][:300]}")
        if detail and b.get("url"):
            lines.append(f"       docs: {b['url']}")
    return lines


def format_times(times: dict[str, Any]) -> str:
    stages = times.get("stages") or {}
    parts = [f"{k} {v:.2f}" for k, v in stages.items()]
    first = times.get("first_call_s")
    if first is not None:
        parts.append(f"first call {first:.2f}")
    return "compile times (s): " + (", ".join(parts) if parts else "none recorded")


def format_explain(report: dict[str, Any]) -> str:
    """The human view: a header, one row per graph, one block per break, the compile times."""
    n, b = report["graph_count"], report["graph_break_count"]
    dyn = "" if report.get("dynamic") is None else f", dynamic={report['dynamic']}"
    dyn += f", only {report['only']}" if report.get("only") else ""
    out = [
        f"{report['program']}: {n} graph{'s' * (n != 1)}, {b} graph break{'s' * (b != 1)},"
        f" {report['op_count']} ops (backend {report['backend']}{dyn})"
    ]
    if report["graphs"]:
        rows = []
        for g in report["graphs"]:
            ops = ", ".join(o.rsplit(".", 1)[-1] if o.startswith("torch") else o for o in g["ops"])
            rows.append((g["index"], g["op_count"], g["ends_with"], ops[:90]))
        out += ["", table(rows, ("graph", "ops", "ends with", "op list"))]
    if report["breaks"]:
        out += ["", "graph breaks:"] + format_breaks(report["breaks"])
    out += ["", format_times(report["compile_times"])]
    if report.get("error"):
        out.append(f"compiled run raised {report['error']['type']}: {report['error']['summary']}")
    return "\n".join(out)
