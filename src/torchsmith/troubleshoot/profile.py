"""``profile``: where compile time goes, per stage, and what the compiled model buys at run time.

One worker job: the eager model is timed first (warm-up calls, then ``repeat`` timed calls), then
the model is compiled and called once (the compile, timed per stage from torch's own
``dynamo_timed`` counters, ``torch._dynamo.utils.compilation_time_metrics``), then timed like
eager. Graph, graph-break and recompile counts come from Dynamo's counters and the
``recompiles`` log. Inductor's FX-graph and AOTAutograd caches are off by default (a cache hit
skips lowering, so the stages would be missing); the compiled-kernel cache stays on, so a C++
kernel built before is not rebuilt (``c++ compile`` then shows no time). ``trace`` writes the
torch profiler's Chrome trace of a few compiled calls (open it in https://ui.perfetto.dev or
``chrome://tracing``).

Report (``--json``, schema 1)::

    {"schema": 1, "program", "backend", "mode", "dynamic", "only", "cache",
     "compile": {"stages": [{"label", "key", "depth", "s"}], "all": {name: s},
                 "first_call_s"},
     "graphs", "graph_breaks", "recompiles", "frames",
     "runtime": {"warmup", "repeat",
                 "eager": {"median_ms", "min_ms", "max_ms", "p25_ms", "p75_ms", "spread_pct"},
                 "compiled": {...}, "speedup"},
     "trace": null | path, "error": null | {"type", "message", "summary"}}

``spread_pct`` is the interquartile range over the median. ``speedup`` is eager median over
compiled median (above 1: the compiled model is faster).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from torchsmith.execute.worker import Worker
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.troubleshoot.common import (
    SCHEMA,
    capture_logs,
    compile_target,
    exception_info,
    load_error_result,
    report_header,
    run_job,
    table,
)

JOB = "torchsmith.troubleshoot.profile:profile_job"

#: Compile stages in pipeline order: (label, ``dynamo_timed`` name, depth). Times are
#: inclusive: a stage contains the deeper ones listed under it.
STAGES: tuple[tuple[str, str, int], ...] = (
    ("total (Dynamo frame compile)", "_compile.compile_inner", 0),
    ("Dynamo trace (bytecode -> FX)", "bytecode_tracing", 1),
    ("backend compile", "OutputGraph.call_user_compiler", 1),
    ("AOTAutograd", "create_aot_dispatcher_function", 2),
    ("Inductor (compile_fx_inner)", "compile_fx_inner", 3),
    ("lowering (GraphLowering.run)", "GraphLowering.run", 4),
    ("scheduling (Scheduler.__init__)", "Scheduler.__init__", 4),
    ("codegen", "GraphLowering.codegen", 4),
    ("C++ compile", "compile_file", 5),
    ("Triton compile", "async_compile.precompile", 5),
    ("kernel compile wait", "async_compile.wait", 4),
    ("load generated module", "PyCodeCache.load_by_key_path", 4),
    ("guards", "build_guards", 1),
)

WARMUP = 3
REPEAT = 20
TRACE_CALLS = 5


# -- pure pieces (unit-tested) ----------------------------------------------------------------------
def summarize(seconds: list[float]) -> dict[str, float]:
    """Median, min, max, quartiles (ms) and the interquartile spread (% of the median)."""
    if not seconds:
        return {}
    ms = sorted(s * 1000.0 for s in seconds)
    q = statistics.quantiles(ms, n=4, method="inclusive") if len(ms) > 1 else [ms[0]] * 3
    med = statistics.median(ms)
    return {
        "median_ms": round(med, 4),
        "min_ms": round(ms[0], 4),
        "max_ms": round(ms[-1], 4),
        "p25_ms": round(q[0], 4),
        "p75_ms": round(q[2], 4),
        "spread_pct": round(100.0 * (q[2] - q[0]) / med, 1) if med > 0 else 0.0,
    }


def stage_rows(metrics: dict[str, float]) -> list[dict[str, Any]]:
    """The :data:`STAGES` present in aggregated compile-time metrics, in pipeline order."""
    return [
        {"label": label, "key": key, "depth": depth, "s": round(metrics[key], 4)}
        for label, key, depth in STAGES
        if key in metrics
    ]


def speedup(eager: dict[str, float], compiled: dict[str, float]) -> float | None:
    e, c = eager.get("median_ms"), compiled.get("median_ms")
    return round(e / c, 3) if e and c else None


# -- in the worker ----------------------------------------------------------------------------------
def _timed_calls(fn: Callable[[], Any], warmup: int, repeat: int, sync: Callable[[], None]) -> list:
    for _ in range(warmup):
        fn()
    sync()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t0)
    return out


def profile_job(
    program: Program,
    options: CheckOptions,
    emit_phase: Any,
    warmup: int = WARMUP,
    repeat: int = REPEAT,
    cache: bool = False,
    trace: str | None = None,
) -> dict[str, Any]:
    """The ``call`` job behind ``torchsmith profile`` (see the module docstring)."""
    import contextlib

    import torch
    import torch._dynamo.utils as du

    from torchsmith.oracle import runtime
    from torchsmith.verdict import Phase

    report = report_header(SCHEMA, program, options, "mode", "dynamic")
    report.update(cache=cache, trace=None)
    dtype = runtime.resolve_dtype(options.dtype)
    cuda = options.device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    with contextlib.ExitStack() as stack:
        stack.enter_context(runtime.compiler_config(options))
        if not cache:
            stack.enter_context(torch._inductor.config.patch(fx_graph_cache=False))
            stack.enter_context(torch._functorch.config.patch(enable_autograd_cache=False))
        stack.enter_context(torch.set_grad_enabled(options.grad))
        try:
            emit_phase(Phase.LOAD)
            loaded = runtime.load(program, options.seed)
            model = runtime.build_model(loaded, options.seed, options.device, dtype)
            args = runtime.prepare_inputs(loaded.inputs, options.device, dtype, grad=options.grad)
            kwargs = loaded.calls[0].kwargs
        except runtime.ProgramLoadError as e:
            return load_error_result(e)
        emit_phase(Phase.EAGER)
        try:
            eager = _timed_calls(lambda: model(*args, **kwargs), warmup, repeat, sync)
        except Exception as e:  # the program itself fails: nothing to profile
            return load_error_result(
                runtime.ProgramLoadError(f"the eager run raised {type(e).__name__}: {e}")
            )
        emit_phase(Phase.COMPILED)
        try:
            compiled = compile_target(loaded, model, options, **options.compile_kwargs())
        except runtime.ProgramLoadError as e:
            return load_error_result(e)
        du.compilation_time_metrics.clear()
        du.counters.clear()
        compiled_times: list[float] = []
        first = 0.0
        with capture_logs(recompiles=True) as records:
            try:
                t0 = time.perf_counter()
                compiled(*args, **kwargs)
                sync()
                first = time.perf_counter() - t0
                compiled_times = _timed_calls(
                    lambda: compiled(*args, **kwargs), warmup, repeat, sync
                )
                if trace:
                    report["trace"] = _write_trace(lambda: compiled(*args, **kwargs), trace, cuda)
            except Exception as e:  # the report keeps what was measured before
                report["error"] = exception_info(e)
        metrics = {k: sum(v) for k, v in du.compilation_time_metrics.items()}
        frames = du.counters["frames"]
        report.update(
            {
                "compile": {
                    "stages": stage_rows(metrics),
                    "all": {k: round(v, 4) for k, v in metrics.items()},
                    "first_call_s": round(first, 4),
                },
                "graphs": int(du.counters["stats"].get("unique_graphs", 0)),
                "graph_breaks": int(sum(du.counters["graph_break"].values())),
                "recompiles": sum("Recompiling function" in r.message for r in records),
                "frames": {"total": int(frames.get("total", 0)), "ok": int(frames.get("ok", 0))},
            }
        )
    e_sum, c_sum = summarize(eager), summarize(compiled_times)
    report["runtime"] = {
        "warmup": warmup,
        "repeat": repeat,
        "eager": e_sum,
        "compiled": c_sum,
        "speedup": speedup(e_sum, c_sum),
    }
    return report


def _write_trace(call: Callable[[], Any], path: str, cuda: bool) -> str:
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        for _ in range(TRACE_CALLS):
            call()
    prof.export_chrome_trace(path)
    return path


# -- in the parent ----------------------------------------------------------------------------------
def profile_program(
    program: Program,
    options: CheckOptions | None = None,
    *,
    warmup: int = WARMUP,
    repeat: int = REPEAT,
    cache: bool = False,
    trace: str | None = None,
    worker: Worker | None = None,
) -> dict[str, Any]:
    """The profile report of ``program`` (see the module docstring), computed in a worker.

    Raises :class:`~torchsmith.troubleshoot.common.TroubleshootError` when the program does not
    load, fails eagerly, hangs or kills the worker; a compiled run that raises is in ``error``.
    """
    if warmup < 0 or repeat < 1:
        raise ValueError("--warmup must be >= 0 and --repeat >= 1")
    return run_job(
        JOB,
        program,
        options or CheckOptions(),
        worker,
        warmup=warmup,
        repeat=repeat,
        cache=cache,
        trace=trace,
    )


def format_profile(report: dict[str, Any]) -> str:
    """The human view: compile stages as an indented tree, counts, then eager vs compiled."""
    only = f", only {report['only']}" if report.get("only") else ""
    out = [f"{report['program']}: profile (backend {report['backend']}{only})", ""]
    comp = report.get("compile") or {}
    rows = [("  " * r["depth"] + r["label"], f"{r['s']:.3f}") for r in comp.get("stages", [])]
    if rows:
        out.append("compile time per stage (s, inclusive: a stage contains those under it):")
        out.append(table(rows, ("stage", "seconds")))
    else:
        out.append("compile time per stage: none recorded (nothing was compiled)")
    if "first_call_s" in comp:
        out.append(f"  first compiled call (compile + run): {comp['first_call_s']:.3f} s")
    out.append("")
    out.append(
        f"graphs {report.get('graphs', 0)}, graph breaks {report.get('graph_breaks', 0)},"
        f" recompiles {report.get('recompiles', 0)}"
    )
    rt = report.get("runtime") or {}
    lines = []
    for mode in ("eager", "compiled"):
        s = rt.get(mode) or {}
        if s:
            lines.append(
                (
                    mode,
                    f"{s['median_ms']:.4f}",
                    f"{s['p25_ms']:.4f}-{s['p75_ms']:.4f}",
                    f"{s['min_ms']:.4f}",
                    f"{s['max_ms']:.4f}",
                    f"{s['spread_pct']:.1f}%",
                )
            )
    if lines:
        out += ["", f"steady state, {rt['repeat']} calls after {rt['warmup']} warm-up calls (ms):"]
        out.append(table(lines, ("mode", "median", "p25-p75", "min", "max", "spread")))
        if rt.get("speedup") is not None:
            out.append(f"  speedup (eager median / compiled median): {rt['speedup']:.2f}x")
    if report.get("trace"):
        out += ["", f"profiler trace: {report['trace']} (open in https://ui.perfetto.dev)"]
    if report.get("error"):
        out += ["", f"compiled run raised {report['error']['type']}: {report['error']['summary']}"]
    return "\n".join(out)
