"""``recompiles``: run one compiled model over varying shapes, dtypes or attributes, and say why
each recompilation happened.

One model is compiled once and called once per step. Step 0 runs the program as written; every
later step is the program's own inputs and model with one thing changed (``--vary``): the size of a dimension of some inputs, the dtype of
the model and its float inputs, or a model attribute (a Python value ``forward`` reads). Dynamo's
``recompiles`` log is captured during each call: every recompilation names the function and the
guard that failed for each cache entry (``tensor 'x' size mismatch at index 0. expected 2,
actual 4``); the ``recompile_limit`` warning says when the cache was full and the call ran
eagerly.

``--vary`` specs (:func:`parse_vary`)::

    dim=D:S1,S2,...                 dimension D of input 0 takes sizes S1, S2, ...
    input=K,dim=D:S1,...            ... of input K (K may be 0+1 for several inputs)
    dtype=float32,float16           model and float inputs cast to each dtype
    attr=NAME:V1,V2                 model attribute NAME (dotted for submodules) set to each value

Report (``--json``, schema 1)::

    {"schema": 1, "program", "backend", "dynamic", "recompile_limit",
     "accumulated_recompile_limit", "compiles", "recompile_count", "limit_hit", "steps": [
        {"index", "label", "status": compiled | recompiled | cached | limit | error,
         "new_graphs", "recompiles": [{"function", "file", "line", "compile_id",
                                        "failures": [{"entry", "reason"}]}],
         "limit": null | {"limit", "value", "function", "last_reason"}, "error"}]}
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from torchsmith.execute.worker import Worker
from torchsmith.options import DTYPES, CheckOptions
from torchsmith.program.format import Program
from torchsmith.troubleshoot.common import (
    SCHEMA,
    capture_logs,
    exception_info,
    load_error_result,
    run_job,
    short_path,
    table,
)

JOB = "torchsmith.troubleshoot.recompiles:recompiles_job"

_RECOMPILE_RE = re.compile(r"Recompiling function (?P<fn>\S+) in (?P<file>.+):(?P<line>\d+)")
_ENTRY_RE = re.compile(r"^(?P<entry>\d+/\d+):\s*(?P<reason>.+?)\s*$")
_GUARD_RE = re.compile(
    r"^(?P<guard>.+?)\s{2,}#\s*(?P<code>.*?)\s+#\s*(?P<where>\S+:\d+ in \S+)"
    r"(?:\s*\(HINT: (?P<hint>.*)\))?\s*$"
)
_LIMIT_RE = re.compile(r"hit config\.(?P<limit>\w+) \((?P<value>\d+)\)")
_LIMIT_FN_RE = re.compile(r"function: '(?P<fn>[^']+)'")
_LAST_RE = re.compile(r"last reason: (?P<reason>.+)")


# -- parsing (pure; unit-tested) ------------------------------------------------------------------
def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_vary(spec: str) -> dict[str, Any]:
    """One ``--vary`` spec as a dict; raises ValueError with a usable message."""
    spec = spec.strip()
    kind = spec.split("=", 1)[0].strip()
    if kind == "dtype":
        values = [v.strip() for v in spec.split("=", 1)[1].split(",") if v.strip()]
        bad = [v for v in values if v not in DTYPES]
        if not values or bad:
            raise ValueError(f"--vary dtype=...: each value must be one of {', '.join(DTYPES)}")
        return {"kind": "dtype", "values": values}
    if ":" not in spec or "=" not in spec:
        raise ValueError(
            f"--vary {spec!r}: expected dim=D:S1,S2 | input=K,dim=D:S1,S2 | dtype=T1,T2"
            " | attr=NAME:V1,V2"
        )
    lhs, _, rhs = spec.partition(":")
    raw_values = [v.strip() for v in rhs.split(",") if v.strip()]
    if not raw_values:
        raise ValueError(f"--vary {spec!r}: no values after ':'")
    keys: dict[str, str] = {}
    for part in lhs.split(","):
        k, eq, v = part.partition("=")
        if not eq:
            raise ValueError(f"--vary {spec!r}: {part!r} is not KEY=VALUE")
        keys[k.strip()] = v.strip()
    if "attr" in keys:
        if set(keys) != {"attr"} or not re.fullmatch(r"[A-Za-z_][\w.]*", keys["attr"]):
            raise ValueError(f"--vary {spec!r}: expected attr=NAME:V1,V2")
        return {"kind": "attr", "name": keys["attr"], "values": [_literal(v) for v in raw_values]}
    if "dim" in keys and set(keys) <= {"dim", "input"}:
        try:
            inputs = [int(k) for k in keys.get("input", "0").split("+")]
            dim = int(keys["dim"])
            values = [int(v) for v in raw_values]
        except ValueError:
            raise ValueError(f"--vary {spec!r}: input, dim and sizes must be integers") from None
        if any(v < 0 for v in values) or any(k < 0 for k in inputs):
            raise ValueError(f"--vary {spec!r}: sizes and input indices must not be negative")
        return {"kind": "dim", "inputs": inputs, "dim": dim, "values": values}
    raise ValueError(f"--vary {spec!r}: unknown keys {', '.join(sorted(keys))}")


#: The first step: the program's own inputs and model, which compiles the first cache entry.
BASELINE: dict[str, Any] = {"kind": "none", "values": [None]}


def step_label(vary: dict[str, Any], value: Any) -> str:
    if vary["kind"] == "none":
        return "as written"
    if vary["kind"] == "dim":
        names = "+".join(f"input{k}" for k in vary["inputs"])
        return f"{names}.size({vary['dim']})={value}"
    if vary["kind"] == "dtype":
        return f"dtype={value}"
    return f"{vary['name']}={value!r}"


def _failure(entry: str | None, text: str) -> dict[str, Any]:
    """``self.scale == 2   # code  # f.py:13 in forward (HINT: ...)`` split into its parts."""
    m = _GUARD_RE.match(text)
    if m is None:
        return {"entry": entry, "reason": text, "code": None, "where": None, "hint": None}
    return {
        "entry": entry,
        "reason": m["guard"],
        "code": m["code"],
        "where": m["where"],
        "hint": m["hint"],
    }


def parse_recompile_log(message: str) -> dict[str, Any] | None:
    """``Recompiling function forward in f.py:11`` and its guard failures (newest entry first).

    Each failure starts ``- 0/1: <reason>``; the ``- User stack trace:`` lines after it belong
    to it. Older releases print ``- <reason>`` without the cache-entry id: then each dash line
    is one failure.
    """
    m = _RECOMPILE_RE.search(message)
    if m is None:
        return None
    lines = [
        ln.strip()[1:].strip() for ln in message.splitlines()[1:] if ln.strip().startswith("-")
    ]
    with_ids = any(_ENTRY_RE.match(ln) for ln in lines)
    failures = []
    for ln in lines:
        e = _ENTRY_RE.match(ln)
        if e:
            failures.append(_failure(e["entry"], e["reason"]))
        elif not with_ids:
            failures.append(_failure(None, ln))
    return {"function": m["fn"], "file": m["file"], "line": int(m["line"]), "failures": failures}


def parse_limit_log(message: str) -> dict[str, Any] | None:
    """Dynamo's ``hit config.recompile_limit (8)`` warning, or None."""
    m = _LIMIT_RE.search(message)
    if m is None:
        return None
    fn, last = _LIMIT_FN_RE.search(message), _LAST_RE.search(message)
    return {
        "limit": m["limit"],
        "value": int(m["value"]),
        "function": fn["fn"] if fn else None,
        "last_reason": last["reason"].strip() if last else None,
    }


# -- in the worker --------------------------------------------------------------------------------
def _resize(t: Any, dim: int, size: int) -> Any:
    """``t`` with dimension ``dim`` of length ``size``: its own values repeated, then cut."""
    import torch

    if not isinstance(t, torch.Tensor) or t.dim() == 0:
        raise ValueError("--vary dim=...: that input is not a tensor with dimensions")
    d = dim % t.dim()
    n = t.shape[d]
    if n == 0:
        shape = list(t.shape)
        shape[d] = size
        return torch.zeros(shape, dtype=t.dtype, device=t.device)
    reps = [1] * t.dim()
    reps[d] = -(-size // n)
    return t.repeat(*reps).narrow(d, 0, size).contiguous()


def _owner(model: Any, name: str) -> tuple[Any, str]:
    *path, attr = name.split(".")
    obj = model
    for p in path:
        obj = getattr(obj, p)
    return obj, attr


def _apply(
    vary: dict[str, Any], value: Any, model: Any, base_inputs: list[Any], options: CheckOptions
) -> tuple[list[Any], Callable[[], None]]:
    """Inputs for one step, after changing the model as it asks; returns them and an undo."""
    from torchsmith.oracle import runtime

    dtype = runtime.resolve_dtype(options.dtype)
    if vary["kind"] == "none":
        return runtime.prepare_inputs(base_inputs, options.device, dtype), lambda: None
    if vary["kind"] == "dim":
        inputs = runtime.prepare_inputs(base_inputs, options.device, dtype)
        for k in vary["inputs"]:
            if k >= len(inputs):
                raise ValueError(f"--vary: the program has {len(inputs)} inputs, no input {k}")
            inputs[k] = _resize(inputs[k], vary["dim"], value)
        return inputs, lambda: None
    if vary["kind"] == "dtype":
        new = runtime.resolve_dtype(value)
        params = [p for p in model.parameters() if p.is_floating_point()]
        old = params[0].dtype if params else None
        model.to(new)
        inputs = runtime.prepare_inputs(base_inputs, options.device, new)
        return inputs, (lambda: model.to(old)) if old is not None else (lambda: None)
    owner, attr = _owner(model, vary["name"])
    missing = object()
    old_value = getattr(owner, attr, missing)
    setattr(owner, attr, value)

    def undo() -> None:
        if old_value is missing:
            delattr(owner, attr)
        else:
            setattr(owner, attr, old_value)

    return runtime.prepare_inputs(base_inputs, options.device, dtype), undo


def recompiles_job(
    program: Program,
    options: CheckOptions,
    emit_phase: Any,
    varies: list[dict[str, Any]],
    recompile_limit: int | None = None,
) -> dict[str, Any]:
    """The ``call`` job behind ``torchsmith recompiles`` (see the module docstring)."""
    import torch
    from torch._dynamo.utils import counters

    from torchsmith.oracle import runtime
    from torchsmith.verdict import Phase

    dtype = runtime.resolve_dtype(options.dtype)
    patch = {} if recompile_limit is None else {"recompile_limit": recompile_limit}
    with runtime.compiler_config(options), torch._dynamo.config.patch(patch):
        emit_phase(Phase.LOAD)
        try:
            loaded = runtime.load(program, options.seed)
        except runtime.ProgramLoadError as e:
            return load_error_result(e)
        model = runtime.build_model(loaded, options.seed, options.device, dtype)
        compiled = torch.compile(model, **options.compile_kwargs())
        report: dict[str, Any] = {
            "schema": SCHEMA,
            "program": program.name,
            "backend": options.backend,
            "dynamic": options.dynamic,
            "recompile_limit": torch._dynamo.config.recompile_limit,
            "accumulated_recompile_limit": getattr(
                torch._dynamo.config, "accumulated_recompile_limit", None
            ),
        }
        steps: list[dict[str, Any]] = []
        emit_phase(Phase.COMPILED)
        with capture_logs(recompiles=True) as records:
            for vary in [BASELINE, *varies]:
                for value in vary["values"]:
                    step: dict[str, Any] = {
                        "index": len(steps),
                        "label": step_label(vary, value),
                        "recompiles": [],
                        "limit": None,
                        "error": None,
                    }
                    seen, graphs_before = len(records), counters["stats"]["unique_graphs"]
                    undo: Callable[[], None] = lambda: None  # noqa: E731
                    try:
                        inputs, undo = _apply(vary, value, model, loaded.inputs, options)
                        runtime.seed_everything(options.seed)
                        with torch.no_grad():
                            compiled(*inputs)
                    except Exception as e:
                        step["error"] = exception_info(e)
                    finally:
                        undo()
                    for r in records[seen:]:
                        if (rc := parse_recompile_log(r.message)) is not None:
                            rc["compile_id"] = r.compile_id or None
                            step["recompiles"].append(rc)
                        elif (lim := parse_limit_log(r.message)) is not None:
                            step["limit"] = lim
                    step["new_graphs"] = counters["stats"]["unique_graphs"] - graphs_before
                    step["status"] = _status(step, first=not steps)
                    steps.append(step)
    report["steps"] = steps
    report["compiles"] = sum(1 for s in steps if s["status"] in ("compiled", "recompiled"))
    report["recompile_count"] = sum(len(s["recompiles"]) for s in steps)
    report["limit_hit"] = any(s["limit"] for s in steps)
    return report


def _status(step: dict[str, Any], first: bool) -> str:
    if step["limit"]:
        return "limit"
    if step["error"]:
        return "error"
    if step["recompiles"]:
        return "recompiled"
    if step["new_graphs"]:
        return "compiled" if first else "recompiled"
    return "cached"


# -- in the parent --------------------------------------------------------------------------------
def recompiles_program(
    program: Program,
    varies: list[dict[str, Any]],
    options: CheckOptions | None = None,
    recompile_limit: int | None = None,
    worker: Worker | None = None,
) -> dict[str, Any]:
    """The recompiles report for ``program`` over ``varies`` (from :func:`parse_vary`)."""
    if not varies:
        raise ValueError("recompiles needs at least one --vary")
    return run_job(
        JOB,
        program,
        options or CheckOptions(),
        worker,
        varies=varies,
        recompile_limit=recompile_limit,
    )


def format_recompiles(report: dict[str, Any]) -> str:
    """The human view: one row per step, then each recompilation with its failed guards."""
    dyn = report.get("dynamic")
    out = [
        f"{report['program']}: {len(report['steps'])} calls, {report['compiles']} compilations,"
        f" {report['recompile_count']} recompilations (backend {report['backend']},"
        f" dynamic={dyn}, recompile_limit={report['recompile_limit']})",
        "",
    ]
    rows = []
    for s in report["steps"]:
        failures = s["recompiles"][0]["failures"] if s["recompiles"] else []
        note = failures[0]["reason"] if failures else ""
        if s["error"]:
            note = f"raised {s['error']['type']}: {s['error']['summary']}"
        if s["limit"]:
            note = f"hit {s['limit']['limit']} ({s['limit']['value']}): runs eagerly from here"
        rows.append((s["index"], s["label"], s["status"], s["new_graphs"], note[:100]))
    out.append(table(rows, ("step", "change", "status", "graphs", "guard that failed / note")))
    details = [s for s in report["steps"] if s["recompiles"]]
    if details:
        out += ["", "recompilations:"]
        for s in details:
            for rc in s["recompiles"]:
                cid = f" [{rc['compile_id']}]" if rc.get("compile_id") else ""
                out.append(
                    f"  step {s['index']} ({s['label']}){cid}: {rc['function']} at"
                    f" {short_path(rc['file'])}:{rc['line']}"
                )
                for k, f in enumerate(rc["failures"]):
                    entry = f"cache entry {f['entry']}: " if f["entry"] else ""
                    where = f"  ({short_path(f['where'])}: {f['code']})" if f.get("where") else ""
                    out.append(f"      - {entry}{f['reason']}{where}")
                    if k == 0 and f.get("hint"):
                        out.append(f"        hint: {f['hint']}")
    out.append("")
    if report["limit_hit"]:
        lim = next(s["limit"] for s in report["steps"] if s["limit"])
        out.append(
            f"recompile limit hit: config.{lim['limit']}={lim['value']} for {lim['function']};"
            " later calls run eagerly (raise it with --recompile-limit, or mark the dimension"
            " dynamic)"
        )
    else:
        out.append(f"recompile limit not hit (recompile_limit={report['recompile_limit']})")
    return "\n".join(out)
