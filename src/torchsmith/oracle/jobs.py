"""The jobs a worker runs for the judge: one differential check of one program under one backend,
its eager half, and Inductor's ``CompilerBisector``.

The order follows PyTorch's accuracy harness (``benchmarks/dynamo/common.py``): eager, eager again
with the same seed (nondeterminism rules the program out), float64 eager as the reference, then
compiled after ``torch._dynamo.reset()``, each run re-seeded and with
``torch._inductor.config.fallback_random = True``.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from typing import Any

import torch

from torchsmith import ddguard
from torchsmith.execute import toolchain
from torchsmith.options import CheckOptions
from torchsmith.oracle import (
    compile_times,
    export_path,
    native_random,
    probe,
    runtime,
    sensitivity,
)
from torchsmith.oracle.compare import Judgement, compare
from torchsmith.oracle.diagnose import diagnose
from torchsmith.oracle.outputs import difference
from torchsmith.oracle.undefined import Undefined
from torchsmith.program.format import Program
from torchsmith.verdict import Phase, Verdict

Emit = Callable[[Phase], None]
TRACEBACK_TAIL_LINES = 30


def _result(verdict: Verdict, phase: Phase | None, reason: str = "", **evidence: Any) -> dict:
    return {
        "verdict": verdict.value,
        "phase": phase.value if phase else None,
        "reason": reason,
        "evidence": evidence,
    }


def exception_evidence(e: BaseException) -> dict[str, Any]:
    """Type, message and traceback tail of a compiled-mode exception, plus its innermost torch frame."""
    tb = traceback.extract_tb(e.__traceback__)
    torch_frames = [f for f in tb if "/torch/" in f.filename.replace("\\", "/")]
    inner = torch_frames[-1] if torch_frames else (tb[-1] if tb else None)
    cause = e
    while cause.__cause__ is not None and type(cause).__name__ in {"BackendCompilerFailed"}:
        cause = cause.__cause__
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    msg = toolchain.fill_compile_output(str(e))  # torch 2.6: "Output: None"
    return {
        "exc_type": f"{type(e).__module__}.{type(e).__qualname__}".removeprefix("builtins."),
        "root_type": f"{type(cause).__module__}.{type(cause).__qualname__}".removeprefix(
            "builtins."
        ),
        "message": msg[:4000],
        "traceback_tail": "\n".join(text.rstrip().splitlines()[-TRACEBACK_TAIL_LINES:]),
        "torch_frame": (
            f"{inner.filename.split('/torch/', 1)[-1]}:{inner.lineno} in {inner.name}"
            if inner
            else None
        ),
    }


def compiled_failure(e: BaseException, backend: str | None, ev: dict[str, Any]) -> dict[str, Any]:
    """The verdict on a compiled run that raised ``e`` (eager did not): a ``crash``, except
    what is the program's fault: what the export path refuses (``export_path.program_fault``)
    and a data-dependent guard in the program's own code (``ddguard``). A data-dependent guard
    in torch's code stays a crash with ``kind="data-dependent"`` (a lesser bug)."""
    if export_path.is_export_backend(backend):
        why = export_path.program_fault(e)
    else:
        dde = ddguard.classify(e)
        why = None
        if dde is not None and dde.is_users:
            where = f" ({dde.site})" if dde.site else ""
            why = (
                f"a data-dependent guard in the program's own code{where}: a torch._check"
                " is the program's to write"
            )
    if why:
        ev["summary"] = why  # not a compiler bug
        return _result(Verdict.INVALID, Phase.COMPILED, why, backend=backend, **ev)
    reason = f"compiled ({backend}) raised {ev['exc_type']}: {_first_line(ev['message'])}"
    dde = ddguard.classify(e)
    if dde is not None and not dde.is_users:
        ev.update(kind="data-dependent", dde_site=dde.site, dde_expression=dde.expression)
        reason = f"compiled ({backend}) hit a data-dependent guard in {dde.site}: {dde.expression}"
    return _result(Verdict.CRASH, Phase.COMPILED, reason, backend=backend, **ev)


def _first_line(msg: str) -> str:
    for line in msg.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _diagnose_invalid(runner: Any, exc: Exception, dtype: torch.dtype | None) -> dict:
    """Re-run eager under the op recorder to say which op broke which constraint."""
    evidence: dict[str, Any] = {
        "exc_type": type(exc).__name__,
        "message": str(exc)[:2000],
        "summary": f"{type(exc).__name__}: {_first_line(str(exc))}",
    }
    try:
        found = diagnose(lambda: runner.run(None, dtype), runner.filename)
    except Exception as e:  # the diagnosis must never turn into a verdict of its own
        evidence["diagnose_error"] = repr(e)[:300]
        return evidence
    if found is not None:
        evidence.update(found.to_dict())
    return evidence


def run_check(
    program: Program,
    options: CheckOptions,
    emit: Emit,
    backend: str | None = None,
    eager_only: bool = False,
) -> dict:
    """Check ``program`` under ``backend`` (default: ``options.backend``); returns a result dict.

    With ``eager_only`` it stops after the two eager runs: ``pass`` then means the program is
    valid and deterministic (what generators and reducers ask before compiling anything).
    """
    requested = backend
    backend = backend or options.backend
    timings: dict[str, float] = {}
    dtype = runtime.resolve_dtype(options.dtype)

    def timed(phase: Phase, fn: Callable[[], Any]) -> Any:
        emit(phase)
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            timings[phase.value] = round(time.perf_counter() - t0, 4)

    def finish(res: dict) -> dict:
        res["timings"] = timings
        return res

    with runtime.compiler_config(options):
        try:
            runner = timed(Phase.LOAD, lambda: make_runner(program, options))
        except runtime.ProgramLoadError as e:
            return finish(_result(Verdict.INVALID, Phase.LOAD, str(e), summary=str(e)))

        def run(backend: str | None, dtype: torch.dtype | None) -> Any:
            out = runner.run(backend, dtype)
            runtime.synchronize(options.device)  # an asynchronous CUDA fault is this run's
            return out

        backend = runner.compiled_backend(requested)
        try:
            ref = timed(Phase.EAGER, lambda: run(None, dtype))
        except runtime.ProgramLoadError as e:  # a script that tests nothing
            return finish(_result(Verdict.INVALID, Phase.LOAD, str(e), summary=str(e)))
        except Exception as e:
            ev = _diagnose_invalid(runner, e, dtype)
            return finish(_result(Verdict.INVALID, Phase.EAGER, ev["summary"], **ev))
        try:
            ref2 = timed(Phase.EAGER_REPEAT, lambda: run(None, dtype))
        except Exception as e:
            return finish(
                _result(
                    Verdict.NONDETERMINISTIC,
                    Phase.EAGER_REPEAT,
                    f"the second eager run raised {type(e).__name__}: {_first_line(str(e))}",
                )
            )
        diff = first_difference(runner, ref, ref2, dtype)
        blanked = Undefined(runner, dtype)
        if diff is not None and blanked.apply(ref, ref2):  # torch.empty outputs: meta only
            diff = first_difference(runner, ref, ref2, dtype)
        if diff is not None and blanked.paths:
            diff["values_undefined"] = blanked.paths
        same_twice = diff is None
        del ref2  # what the tool holds is what the program needs, and no more
        nondeterministic = _result(
            Verdict.NONDETERMINISTIC,
            Phase.EAGER_REPEAT,
            "two eager runs with the same seed give different outputs" + describe(diff),
            **(diff or {}),
        )
        if not same_twice and eager_only:
            return finish(nondeterministic)
        if eager_only:
            return finish(_result(Verdict.PASS, None, "valid in eager", eager_only=True))
        if not same_twice:
            # Values cannot be judged, behaviour can: a compiled run that raises is a crash.
            try:
                timed(Phase.COMPILED, lambda: run(backend, dtype))
            except Exception as e:
                ev = exception_evidence(e)
                ev["eager"] = "nondeterministic (values not judged)"
                return finish(compiled_failure(e, backend, ev))
            return finish(nondeterministic)
        fp64_note = None
        fp64: runtime.RunResult | None = None
        comparable = native_random.values_comparable(program.source, options.config)
        if not comparable:  # Inductor's own random numbers: no value is compared
            fp64_note = "not run: values not compared (fallback_random=False)"
        else:
            try:
                fp64 = timed(Phase.FP64, lambda: run(None, torch.float64))
            except Exception as e:
                if broken := runtime.device_fault():  # the compiled run after it is untrusted
                    raise RuntimeError(f"the float64 run broke the CUDA context: {broken}") from e
                fp64_note = f"float64 run raised {type(e).__name__}: {_first_line(str(e))}"
        compile_times.reset()
        try:
            res = timed(Phase.COMPILED, lambda: run(backend, dtype))
        except Exception as e:
            return finish(compiled_failure(e, backend, exception_evidence(e)))
        timings.update({f"compile {k}": v for k, v in compile_times.stages().items()})
        emit(Phase.COMPARE)
        late = getattr(res, "late", None)  # a script's backward compiled after its calls
        if late is not None:  # judge the calls the compiled run got through
            ref, fp64 = runner.cut(ref, res), runner.cut(fp64, res) if fp64 else None
        if comparable:
            judged = _judge(runner, options, dtype, ref, res, fp64, emit, timings, blanked)
        else:
            parts = {runner.out_prefix: (ref.out, res.out)}
            if ref.grads is not None or res.grads is not None:
                parts["grad"] = (ref.grads, res.grads)
            judged = native_random.judge(parts)
        if judged.verdict is Verdict.PASS and _exact_mode(options, backend):
            judged = _exactly_eager(runner, ref, res, dtype) or judged
        if late is not None and not _wrong(judged.verdict):
            ev = exception_evidence(late)
            reason = (
                f"compiled ({backend}) raised {ev['exc_type']} after its calls:"
                f" {_first_line(ev['message'])}"
            )
            ev.update(runner.evidence(), invalid_calls=runner.invalid_calls())
            return finish(_result(Verdict.CRASH, Phase.COMPILED, reason, backend=backend, **ev))
        path = str(judged.evidence.get("output", ""))
        if path and judged.reason.startswith(path):
            judged.reason = runner.where(path) + judged.reason[len(path) :]
        extra: dict[str, Any] = {"backend": backend, "fp64": fp64_note or "ok"}
        extra.update(runner.evidence())
        extra.update(graph_counters())
        judged.evidence.update(extra)
        phase = None if judged.verdict is Verdict.PASS else Phase.COMPARE
        no_graph = not extra["graphs"] and not export_path.is_export_backend(backend)
        if judged.verdict is Verdict.PASS and backend != "eager" and no_graph:
            why = "; ".join(extra["unsupported"]) or "no tensor operations captured"
            judged.reason = (
                f"passed, but Dynamo compiled no graph ({why}): the program ran eagerly;"
                " --fullgraph turns this into an error"
            )
        _note_invalid_calls(runner, judged)
        return finish(_result(judged.verdict, phase, judged.reason, **judged.evidence))


def first_difference(
    runner: Any, a: runtime.RunResult, b: runtime.RunResult, dtype: torch.dtype | None
) -> dict[str, Any] | None:
    """Where two eager runs differ first (outputs, then inputs after the call, then gradients),
    with the size of the difference; None when they are identical."""
    for p in (runner.out_prefix, "input", "grad"):
        d = difference(runner.part(a, p, dtype), runner.part(b, p, dtype), p)
        if d is not None:
            return d
    return None


def describe(diff: dict[str, Any] | None) -> str:
    """``: out['cache'].layers[0].keys differs (3 of 64 values, max abs 0.1, max rel 0.02)``."""
    if diff is None:
        return ""
    text = f": {diff['output']} differs"
    if "differ" in diff:
        text += (
            f" ({diff['differ']} of {diff['numel']} values, max abs {diff['max_abs']:.3g},"
            f" max rel {diff['max_rel']:.3g})"
        )
    elif "max_abs" in diff:
        text += f" ({diff['first']!r} vs {diff['second']!r}, abs {diff['max_abs']:.3g})"
    else:
        text += f" ({diff.get('first', diff.get('structure'))} vs {diff.get('second', '')})"
    return text


def _exact_mode(options: CheckOptions, backend: str | None) -> bool:
    """Whether the run is judged bit for bit (``--exact``, for ``--mode lite``, whose PR #167115
    promises "the exact behavior of eager"): not under freezing, which folds constants and
    repacks weights on its own path, an explicit opt-in to other numerics. Off by default:
    decompositions registered for Autograd (``F.interpolate``'s, #107526) run in every mode, a
    known limit maintainers would dismiss as a report."""
    freezing = options.config.get("inductor.freezing") or options.inductor_options.get("freezing")
    return options.exact and backend is not None and not freezing


def _exactly_eager(
    runner: Any, ref: runtime.RunResult, res: runtime.RunResult, dtype: torch.dtype | None
) -> Judgement | None:
    """A mismatch when a compiled run in an exact mode differs from eager bit for bit in its
    outputs or the inputs it mutated (gradients may sum in another order); None when it does
    not. Only called once two eager runs agreed bit for bit."""
    for p in (runner.out_prefix, "input"):
        d = difference(runner.part(ref, p, dtype), runner.part(res, p, dtype), p)
        if d is not None:
            reason = f"judged bit for bit (--exact), the compiled run{describe(d)}"
            return Judgement(Verdict.MISMATCH, reason, {**d, "exact_mode": True})
    return None


def _wrong(verdict: Verdict) -> bool:
    """A compiled result that is wrong (not merely imprecise): it outranks a later exception."""
    return verdict.is_wrong_output and verdict is not Verdict.IMPRECISE


def _note_invalid_calls(runner: Any, judged: Judgement) -> None:
    """A script's calls that raised in eager were not judged: name them (the verdict is that
    of the judged calls)."""
    invalid = runner.invalid_calls() if hasattr(runner, "invalid_calls") else []
    if not invalid:
        return
    judged.evidence["invalid_calls"] = invalid
    named = "; ".join(f"{c['call']} ({c['site']}): {c['error']}" for c in invalid)
    note = f"not judged, invalid in eager: {named}"
    judged.reason = f"{judged.reason}; {note}" if judged.reason else note


def _aligned(a: list[dict] | None, b: list[dict] | None) -> tuple[Any, Any, None]:
    """Two runs' per-call side effects over the same keys, as text (``unchanged`` where a run
    left a value alone), so a difference reads as a wrong value, not a shape."""
    n = max(len(a or []), len(b or []))
    a = (a or []) + [{}] * (n - len(a or []))
    b = (b or []) + [{}] * (n - len(b or []))
    left, right = [], []
    for x, y in zip(a, b, strict=True):
        keys = sorted(x.keys() | y.keys())
        left.append({k: repr(x[k]) if k in x else "unchanged" for k in keys})
        right.append({k: repr(y[k]) if k in y else "unchanged" for k in keys})
    return left, right, None


def make_runner(program: Program, options: CheckOptions) -> Any:
    """The runner for ``program``: a canonical program is loaded once; a script (``origin``
    ``script``) is run whole in each mode. Raises ``ProgramLoadError`` for a canonical program
    that does not load."""
    if program.origin == "script":
        from torchsmith.oracle.script import ScriptRunner

        return ScriptRunner(program, options)
    return runtime.ProgramRunner(runtime.load(program, options.seed), options)


def _judge(
    runner: Any,
    options: CheckOptions,
    dtype: torch.dtype | None,
    ref: runtime.RunResult,
    res: runtime.RunResult,
    fp64: runtime.RunResult | None,
    emit: Emit,
    timings: dict[str, float],
    blanked: Undefined | None = None,
) -> Judgement:
    """Outputs (call by call for a sequence), then the inputs a run mutated, then gradients;
    candidates go through the sensitivity probe. A failure is judged again with the outputs'
    undefined values (``torch.empty`` never written) blanked in every run, when there are any."""
    parts: probe.Parts = {runner.out_prefix: (ref.out, res.out, fp64.out if fp64 else None)}
    if runner.mutated(ref) or runner.mutated(res):
        parts["input"] = (
            runner.part(ref, "input", dtype),
            runner.part(res, "input", dtype),
            runner.part(fp64, "input", torch.float64) if fp64 else None,
        )
    if options.grad or (ref.grads and res.grads is not None):  # a script's own backward too
        parts["grad"] = (ref.grads, res.grads, fp64.grads if fp64 else None)
    effects = getattr(runner, "effects", None)
    if effects is not None and (effects(ref) or effects(res)):  # a script's Python side effects
        parts["effects"] = _aligned(effects(ref), effects(res))
    judged = _compare_parts(parts, options.tol)
    if blanked is not None and judged.verdict is not Verdict.PASS:
        if blanked.apply(ref, res, fp64):
            judged = _compare_parts(parts, options.tol)
        if blanked.paths:
            judged.evidence["values_undefined"] = blanked.paths
    if options.probe and judged.verdict in (*sensitivity.CANDIDATES, Verdict.IMPRECISE):
        emit(Phase.PROBE)  # eager variants only: dying in them is not the compiler's
        t0 = time.perf_counter()
        if judged.verdict is Verdict.IMPRECISE:
            judged = probe.precision_judgement(runner, options, dtype, parts, judged)
        else:
            judged = probe.probe_judgement(runner, options, dtype, parts, judged)
        timings["probe"] = round(time.perf_counter() - t0, 4)
        emit(Phase.COMPARE)
    return judged


def _compare_parts(parts: probe.Parts, tol: float) -> Judgement:
    """The first part's failure, or a pass carrying the least precise output's figures."""
    judged = Judgement(Verdict.PASS)
    worst: dict[str, Any] = {}
    for prefix, (a, b, f) in parts.items():
        judged = compare(a, b, f, tol, prefix)
        if judged.verdict is not Verdict.PASS:
            return judged
        p = judged.evidence.get("precision_max")
        if p and p["ratio"] > worst.get("ratio", -1.0):
            worst = p
    if worst:
        judged.evidence["precision_max"] = worst  # the least precise output, for audits
    return judged


def graph_counters() -> dict[str, Any]:
    """Graph, graph-break and skipped-frame counts of the last compile, from Dynamo's counters."""
    from torch._dynamo.utils import counters

    frames = counters["frames"]
    unsupported = sorted({k.splitlines()[0] for k in counters["unimplemented"]})
    return {
        "graphs": int(counters["stats"].get("unique_graphs", 0)),
        "graph_breaks": int(sum(counters["graph_break"].values())),
        "frames_skipped": max(0, int(frames.get("total", 0)) - int(frames.get("ok", 0))),
        "unsupported": unsupported[:5],
    }


def run_bisect(program: Program, options: CheckOptions, emit: Emit, failing: str) -> dict:
    """Run Inductor's ``CompilerBisector`` with "the check gives ``failing`` again" as failure."""
    from torch._inductor.compiler_bisector import CompilerBisector

    emit(Phase.BISECT)
    calls = {"n": 0}

    def passes() -> bool:
        calls["n"] += 1
        torch._dynamo.reset()
        res = run_check(program, options.replace(backend="inductor"), lambda p: None)
        return res["verdict"] != failing

    with runtime.compiler_config(options):
        result = CompilerBisector.do_bisect(passes)
    if result is None:
        return {"found": False, "calls": calls["n"]}
    return {
        "found": True,
        "backend": result.backend,
        "subsystem": result.subsystem,
        "bisect_number": result.bisect_number,
        "debug_info": str(result.debug_info)[:2000] if result.debug_info else None,
        "calls": calls["n"],
    }
