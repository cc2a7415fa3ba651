"""Inside a worker: the sensitivity probe's runs, and the re-judged verdict they lead to.

:class:`Probe` runs the eager variants of :mod:`torchsmith.oracle.perturb` and
:mod:`torchsmith.oracle.boundary` once per candidate and hands their outputs to the decisions in
:mod:`torchsmith.oracle.sensitivity`; :func:`probe_judgement` is the step ``checkjob`` calls on every
candidate ``mismatch`` and ``nan-mismatch``; :func:`sensitivity_job` is the same probe without a
compile, for generators.
"""

from __future__ import annotations

import time
from typing import Any

import torch

from torchsmith.oracle.compare import Judgement, compare, compare_leaf, flatten
from torchsmith.oracle.sensitivity import (
    CANDIDATES,
    MARGIN,
    MAX_PAIRS,
    PAIRS,
    PERTURB_SCALE,
    LeafJudgement,
    explain,
    judge,
    leaf_map,
    verdict_of,
)
from torchsmith.verdict import Category, Verdict


class CompilePath:
    """Eager with ``torch.compiler.is_compiling()`` answering True, for the precision probe.

    Library code that branches on it takes, in eager, the path it takes under torch.compile:
    ``torch.optim``'s ``_get_value`` keeps Adam's step a float32 tensor instead of a Python
    float, so its bias corrections lose digits compiled (accepted when it was written,
    pytorch#88173). A precision loss that this eager run shows too is that library's choice,
    not the compiler's. Measured: 19 of 81 programs of a 12-minute train campaign (torch
    2.13) were ``imprecise`` at the dynamo stage for that reason alone; SGD showed none. After
    three AdamW steps a parameter that cancels to a small value is thousands of ulps off, a
    ``mismatch`` by the ulp rule: so the mismatch probe runs it too, not only the precision
    judgement (a train-hop campaign's one bug-tier false alarm)."""

    def __enter__(self) -> CompilePath:
        self._saved = torch.compiler.is_compiling
        torch.compiler.is_compiling = lambda: True
        return self

    def __exit__(self, *exc: object) -> None:
        torch.compiler.is_compiling = self._saved


class Probe:
    """Eager variants of one loaded program, run once and reused for outputs and gradients."""

    def __init__(self, runner: Any, options: Any, dtype: torch.dtype | None) -> None:
        self.runner, self.options, self.dtype = runner, options, dtype
        self.reference: Any = None  # a runtime.RunResult
        self.reference_changed = False
        self.runs: dict[str, Any] = {}
        self.failed: dict[str, str] = {}
        self.pairs = 0
        self.seconds = 0.0
        self.started = False

    def _run(self, name: str, dtype: torch.dtype | None, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self.runner.run(None, dtype, **kw)
        except Exception as e:  # a variant that cannot run explains nothing
            self.failed[name] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200]}"
            return None
        finally:
            self.seconds += time.perf_counter() - t0

    def start(self) -> None:
        from torchsmith.oracle import perturb
        from torchsmith.oracle.boundary import BoundaryMode

        if self.started:
            return
        self.started = True
        grad = self.options.grad
        wide = perturb.PrecisionMode(torch.float64)
        self.reference = self._run("fp64-upcast", torch.float64, context=lambda: wide)
        self.reference_changed = wide.changed > 0
        up = perturb.PrecisionMode(torch.float32)
        raised = perturb.RaisePrecision(torch.float32, grad)
        upcast = self._run("fp32-intermediates", self.dtype, transform=raised, context=lambda: up)
        if upcast is not None and (up.low_seen or raised.raised):
            self.runs["fp32-intermediates"] = upcast
        for side in (1, -1):
            mode = BoundaryMode(side, MARGIN)
            out = self._run(f"boundary{side:+d}", self.dtype, context=lambda m=mode: m)
            if out is not None:
                self.runs[f"boundary{side:+d}"] = out
        for _ in range(PAIRS):
            self.add_pair()
        self.add_compile_path()  # Adam's float32 step: thousands of ulps after a few steps

    def add_compile_path(self) -> None:
        """The eager run that takes library code's compile-time branches (:class:`CompilePath`)."""
        out = self._run("compile-path", self.dtype, context=CompilePath)
        if out is not None:
            self.runs["compile-path"] = out

    def add_pair(self) -> None:
        """Two antithetic pairs: inputs perturbed (+u, -u), and every rounding done otherwise
        (results moved by +u/-u, reductions added forward/backward)."""
        from torchsmith.oracle import perturb

        seed = 7919 * (self.options.seed + 1) + 104729 * self.pairs
        self.pairs += 1
        for sign in (1.0, -1.0):
            mark = "+" if sign > 0 else "-"
            t = perturb.perturb_inputs(seed, sign, PERTURB_SCALE)
            out = self._run(f"perturbed{self.pairs}{mark}", self.dtype, transform=t)
            if out is not None:
                self.runs[f"perturbed{self.pairs}{mark}"] = out
            mode = perturb.RoundingMode(seed, sign, PERTURB_SCALE)
            out = self._run(f"rounding{self.pairs}{mark}", self.dtype, context=lambda m=mode: m)
            if out is not None:
                self.runs[f"rounding{self.pairs}{mark}"] = out

    def part(self, run: Any, prefix: str, dtype: torch.dtype | None) -> Any:
        """What a run observed under ``prefix`` (the runner's :meth:`part`)."""
        return self.runner.part(run, prefix, dtype)

    def judge(self, prefix: str, ref: Any, res: Any, fp64: Any) -> list[LeafJudgement]:
        """Judge one part (see :meth:`part`), adding perturbed pairs while it helps."""
        self.start()
        while True:
            runs = {
                k: _cast_like(self.part(v, prefix, self.dtype), ref) for k, v in self.runs.items()
            }
            better = None
            if self.reference is not None:
                better = self.part(self.reference, prefix, torch.float64)
            leaves = judge(ref, res, fp64, better, runs, self.options.tol, prefix)
            bad = [j for j in leaves if not j.explained]
            if not bad or not all(j.inconclusive for j in bad) or self.pairs >= MAX_PAIRS:
                return leaves
            self.add_pair()

    def summary(self) -> dict[str, Any]:
        return {
            "runs": sorted(self.runs),
            "reference": "fp64-upcast" if self.reference is not None else "fp64",
            "reference_upcasts_casts": self.reference_changed,
            "failed_runs": self.failed,
            "perturbed_pairs": self.pairs,
            "seconds": round(self.seconds, 4),
        }


def _cast_like(out: Any, like: Any) -> Any:
    """Round a run's float outputs to eager's output dtypes (what a compiled kernel stores)."""
    if isinstance(out, torch.Tensor) and isinstance(like, torch.Tensor):
        if out.dtype != like.dtype and out.is_floating_point() and like.is_floating_point():
            return out.to(like.dtype)
        return out
    if isinstance(out, list | tuple) and isinstance(like, list | tuple) and len(out) == len(like):
        items = [_cast_like(o, lk) for o, lk in zip(out, like, strict=True)]
        return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)
    if isinstance(out, dict) and isinstance(like, dict):
        return {k: _cast_like(v, like.get(k)) for k, v in out.items()}
    return out


Parts = dict[str, tuple[Any, Any, Any]]  # prefix -> (eager, compiled, fp64), in judging order


def part_of(path: str, parts: Parts) -> str:
    """The part a leaf path belongs to (``grad[input0]`` -> ``grad``)."""
    return next((p for p in parts if path.startswith(p)), next(iter(parts)))


def probe_judgement(
    runner: Any, options: Any, dtype: torch.dtype | None, parts: Parts, judged: Judgement
) -> Judgement:
    """Re-judge a candidate from ``oracle.compare`` with the probe (in the worker).

    ``parts`` are what the runs observed (outputs, inputs after the call, gradients), each an
    (eager, compiled, fp64) triple, in the order they are judged; ``judged`` is the candidate,
    found in one of them. When the probe clears it, the parts after it are judged in turn. A
    probe that fails in itself leaves the candidate standing, with the error in the evidence.
    """
    try:
        probe = Probe(runner, options, dtype)
        first = part_of(str(judged.evidence.get("output", "out")), parts)
        leaves = probe.judge(first, *parts[first])
        verdict = verdict_of(leaves)
        later = list(parts)[list(parts).index(first) + 1 :]
        for prefix in later:
            if verdict.category not in (Category.PASS, Category.NOT_JUDGED):
                break
            j = compare(*parts[prefix], options.tol, prefix=prefix)
            if j.verdict is not Verdict.PASS and j.verdict not in CANDIDATES:
                return j
            if j.verdict in CANDIDATES:
                more = probe.judge(prefix, *parts[prefix])
                leaves += more
                if verdict_of(more) in CANDIDATES:
                    judged, verdict = j, verdict_of(more)
                elif verdict_of(more) is Verdict.UNSTABLE:
                    verdict = Verdict.UNSTABLE
        bad = [j for j in leaves if not j.explained]
        if bad and all(j.kind == "value" for j in bad):  # candidates explained, others left
            return _left_over(runner, options, dtype, parts, bad[0], judged, probe, leaves)
        return _finish(judged, verdict, leaves, probe, options, parts)
    except Exception as e:  # never lose a verdict to the probe's own failure
        judged.evidence["probe"] = {"error": f"{type(e).__name__}: {e}"[:500]}
        return judged


def _left_over(
    runner: Any,
    options: Any,
    dtype: torch.dtype | None,
    parts: Parts,
    leaf: LeafJudgement,
    judged: Judgement,
    probe: Probe,
    leaves: list[LeafJudgement],
) -> Judgement:
    """The probe explained every candidate leaf; left are leaves the probe does not judge
    (``imprecise``, a stride, a dtype, a non-numeric value). The judgement is the first such
    leaf's own, an ``imprecise`` one re-judged by :func:`precision_judgement`; never the
    explained candidate's ``mismatch`` (a 1.7e3-ulp AdamW drift the compile-path run explained
    was reported as a wrong value because a bias next to it was ``imprecise``)."""
    prefix = part_of(leaf.output, parts)
    ref, res, fp64 = parts[prefix]
    fresh = compare_leaf(
        leaf.output,
        dict(flatten(ref, prefix))[leaf.output],
        dict(flatten(res, prefix))[leaf.output],
        (leaf_map(fp64, prefix) or {}).get(leaf.output),
        options.tol,
    )
    if fresh is None:  # cannot happen (the probe saw it fail); keep the candidate
        return _finish(judged, verdict_of(leaves), leaves, probe, options, parts)
    summary = probe.summary() | {"candidate": judged.verdict.value}
    summary["candidate_reason"] = judged.reason
    summary["leaves"] = [j.to_dict() for j in leaves]
    evidence = {**fresh.evidence, "output": leaf.output, "explained_candidate": summary}
    left = Judgement(fresh.verdict, fresh.reason, evidence)
    if left.verdict is Verdict.IMPRECISE:
        return precision_judgement(runner, options, dtype, parts, left)
    return left


def _finish(
    judged: Judgement,
    verdict: Verdict,
    leaves: list[LeafJudgement],
    probe: Probe,
    options: Any,
    parts: Parts,
) -> Judgement:
    summary = probe.summary()
    summary["candidate"] = judged.verdict.value
    summary["candidate_reason"] = judged.reason
    summary["leaves"] = [j.to_dict() for j in leaves]
    evidence = dict(judged.evidence)
    evidence["probe"] = summary
    if verdict.category in (Category.PASS, Category.NOT_JUDGED):
        reason = "; ".join(explain(j) for j in leaves if j.explained)
        if verdict is Verdict.UNSTABLE:
            reason = "numerically unstable, not judged a bug: " + reason
        return Judgement(verdict, reason, evidence)
    bad = [j for j in leaves if not j.explained]
    first = next((j for j in bad if j.kind == "nan"), bad[0])
    if first.output != evidence.get("output") and first.kind != "value":
        prefix = part_of(first.output, parts)
        ref, res, fp64 = parts[prefix]
        f64s = leaf_map(fp64, prefix) or {}
        fresh = compare_leaf(
            first.output,
            dict(flatten(ref, prefix))[first.output],
            dict(flatten(res, prefix))[first.output],
            f64s.get(first.output),
            options.tol,
        )
        if fresh is not None:
            evidence.update(fresh.evidence)
            judged = Judgement(fresh.verdict, fresh.reason, evidence)
    if first.confidence is not None:
        evidence["confidence"] = first.confidence
    evidence["failing_outputs"] = [j.output for j in bad]
    return Judgement(verdict, judged.reason, evidence)


#: Eager variants whose distance from fp64 says how imprecise a correct kernel may be: the
#: rounding and perturbation runs (reordered reductions, results moved by an ulp), and eager on
#: library code's compile-time path (:class:`CompilePath`). Boundary runs flip decisions on
#: purpose and say nothing about precision.
_PRECISION_RUNS = ("rounding", "perturbed", "fp32-intermediates", "compile-path")


def precision_judgement(
    runner: Any, options: Any, dtype: torch.dtype | None, parts: Parts, judged: Judgement
) -> Judgement:
    """Re-judge an ``imprecise`` candidate: is compiled further from fp64 than eager gets under
    any reordering of its roundings? ``pass`` when some variant comes within the ratio."""
    from torchsmith.oracle.compare import precision_figures
    from torchsmith.verdict import IMPRECISE_RATIO

    try:
        probe = Probe(runner, options, dtype)
        path = str(judged.evidence.get("output", "out"))
        prefix = part_of(path, parts)
        ref, _, fp64 = parts[prefix]
        f64 = dict(flatten(fp64, prefix))[path]
        probe.started = True  # only the reorderings matter here, not the whole probe
        probe.add_pair()
        probe.add_compile_path()
        if judged.evidence.get("rule") == "ulps":
            return _ulp_precision(probe, prefix, path, parts, dtype, judged)
        worst = 0.0
        for name, run in probe.runs.items():
            if not name.startswith(_PRECISION_RUNS):
                continue
            alt = dict(flatten(_cast_like(probe.part(run, prefix, dtype), ref), prefix)).get(path)
            if isinstance(alt, torch.Tensor) and alt.shape == f64.shape:
                worst = max(worst, precision_figures(alt, alt, f64)["compiled_rmse"])
        figs = judged.evidence["precision"]
        figs["eager_variants_rmse"] = worst
        judged.evidence["probe"] = probe.summary()
        if worst > 0 and figs["compiled_rmse"] < IMPRECISE_RATIO * worst:
            reason = (
                f"{path}: compiled is {figs['ratio']:.3g}x further from fp64 than eager, but"
                f" eager with reordered roundings gets within {figs['compiled_rmse'] / worst:.3g}x"
                " of it: not a precision bug"
            )
            return Judgement(Verdict.PASS, reason, judged.evidence)
        return judged
    except Exception as e:  # never lose a verdict to the probe's own failure
        judged.evidence["probe"] = {"error": f"{type(e).__name__}: {e}"[:500]}
        return judged


def _ulp_precision(
    probe: Probe, prefix: str, path: str, parts: Parts, dtype: Any, judged: Judgement
) -> Judgement:
    """An ``imprecise`` candidate of the ulp rule: ``pass`` when eager variants come within
    :data:`~torchsmith.oracle.ulps.PROBE_RATIO` of compiled's ulp error."""
    from torchsmith.oracle.ulps import explained_by_runs

    ref, res, fp64 = parts[prefix]
    a, b = dict(flatten(ref, prefix))[path], dict(flatten(res, prefix))[path]
    runs = {
        name: dict(flatten(_cast_like(probe.part(run, prefix, dtype), ref), prefix)).get(path)
        for name, run in probe.runs.items()
        if name.startswith(_PRECISION_RUNS)
    }
    ok, figs = explained_by_runs(a, b, dict(flatten(fp64, prefix))[path], runs)
    judged.evidence["probe"] = probe.summary() | {"ulps": figs}
    if ok:
        reason = f"{path}: compiled's ulp error is within reach of eager variants: not a bug"
        return Judgement(Verdict.PASS, reason, judged.evidence)
    return judged


# -- for generators ------------------------------------------------------------------------------
SENSITIVITY_JOB = "torchsmith.oracle.probe:sensitivity_job"


def sensitivity_job(program: Any, options: Any, emit: Any) -> dict[str, Any]:
    """Worker job: is ``program`` numerically unstable in eager alone, before any compile?

    Runs the probe's eager variants and asks the oracle about each as if it were the compiled
    result (against the float64 run that upcasts the program's own casts). A variant the oracle
    would flag means a correct compiler could be flagged too: mismatches found on this program
    will come out ``unstable``. Generators call it through the worker protocol::

        worker.run(Request.call(SENSITIVITY_JOB, program, options), timeout)

    and get ``{"unstable": bool, "flagged": [{"run", "verdict", "output", "reason"}], "runs",
    "seconds"}``; ``unstable`` is None when the program does not run in eager.
    """
    from torchsmith.oracle import runtime
    from torchsmith.verdict import Phase

    emit(Phase.EAGER)
    t0 = time.perf_counter()
    dtype = runtime.resolve_dtype(options.dtype)
    with runtime.compiler_config(options):
        try:
            runner = runtime.ProgramRunner(runtime.load(program, options.seed), options)
            ref = runner.run(None, dtype).out
        except Exception as e:
            return {"unstable": None, "error": f"{type(e).__name__}: {e}"[:300]}
        probe = Probe(runner, options, dtype)
        probe.start()
        better = probe.reference.out if probe.reference is not None else None
        flagged = []
        for name, run in sorted(probe.runs.items()):
            j = compare(ref, _cast_like(run.out, ref), better, options.tol)
            if j.verdict is not Verdict.PASS:
                flagged.append(
                    {
                        "run": name,
                        "verdict": j.verdict.value,
                        "output": j.evidence.get("output"),
                        "reason": j.reason[:300],
                    }
                )
    return {
        "unstable": bool(flagged),
        "flagged": flagged,
        "runs": sorted(probe.runs),
        "seconds": round(time.perf_counter() - t0, 4),
    }
