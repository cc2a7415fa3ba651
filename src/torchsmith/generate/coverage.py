"""Coverage feedback for generators: what programs exercised, and steering toward what is rare.

Features are strings with a prefix saying where they come from:

* ``op:<name>``: an op the model's code calls, by its canonical name (``relu`` for ``F.relu``,
  ``nn.ReLU`` and ``x.relu()``, as :func:`torchsmith.ops.source_ops` reports it; AST only).
  The campaign's ``GenContext.coverage`` holds bare op names, read as ``op:<name>``;
* ``inductor:<counter>``: ``torch._dynamo.utils.counters["inductor"]`` entries (pattern-matcher
  passes such as ``fuse_attention``, ``binary_folding``, ``decompose_mm``, ...);
* ``lowering:<aten op>`` / ``fallback:<aten op>``: what Inductor's ``GraphLowering`` lowered
  itself or handed to an ATen fallback kernel;
* ``metric:<name>``: ``torch._inductor.metrics`` that show an optimization (``fused_nodes``,
  ``num_comprehensive_padding``, ``num_loop_reordering``, ``parallel_reduction_count``, ...);
* ``mm:<aten op>`` from ``counters["aten_mm_info"]``, ``dynamo:graph_break`` and
  ``dynamo:graphs_multi`` from Dynamo's counters.

:func:`collect` runs inside a worker (job kind ``"call"``): it compiles the program once with
caches off, so every pass runs and reports. The parent only ever sees the returned dict. With
``lines=True`` it also measures the compiler's own Python lines (Dynamo, AOTAutograd, Inductor:
:data:`TRACED`) with coverage.py, and reports the lines this worker process had not reported
before (``report["lines"]``: file relative to torch's folder -> line numbers): a campaign keeps
the union (:mod:`torchsmith.campaign.steer`), so a worker never sends a line twice.
"""

from __future__ import annotations

import atexit
import contextlib
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.program.ops import canonical_op
from torchsmith.verdict import CheckResult

if TYPE_CHECKING:
    from torchsmith.execute.worker import Worker
    from torchsmith.generate.llm.prompts import Target

COLLECT_FUNCTION = "torchsmith.generate.coverage:collect"

#: Inductor counters that are bookkeeping, not optimizations.
_BOOKKEEPING = (
    "fxgraph_",
    "autograd_cache",
    "generated_module_cache",
    "benchmarking.",
    "triton_bundler",
    "select_algorithm",
    "cudagraph",
    "extern_calls",
)
_METRICS = (
    "num_comprehensive_padding",
    "num_loop_reordering",
    "parallel_reduction_count",
    "codegen_nested_reduction",
    "codegen_mix_order_reduction",
    "cpp_to_dtype_count",
    "num_matches_for_scatter_upon_const_tensor",
    "num_auto_chunking",
)


#: The packages under torch's folder whose lines :func:`collect` measures.
TRACED = ("_dynamo", "_functorch", "_inductor")
#: Lines this worker process has reported already (file -> line numbers); worker-side only.
_REPORTED: dict[str, set[int]] = {}


def op_key(name: str) -> str:
    return f"op:{canonical_op(name)}"


def source_features(source: str) -> Counter[str]:
    """``op:<name>`` for every op the program's source calls (AST only)."""
    from torchsmith.program.ops import source_ops

    return Counter(op_key(name) for name in source_ops(source))


# -- inside the worker --------------------------------------------------------------------------
def collect(
    program: Program,
    options: CheckOptions,
    emit: Any,
    backend: str = "inductor",
    lines: bool = False,
) -> dict[str, Any]:
    """Compile and run ``program`` once under ``backend``; report counters, lowerings, metrics
    and, with ``lines``, the compiler lines first run in this worker (:func:`_new_lines`).

    Runs in a worker only. Caches are off so the passes run even for a graph seen before.
    """
    import torch
    from torch._dynamo.utils import counters
    from torch._inductor import config as inductor_config
    from torch._inductor import graph as inductor_graph
    from torch._inductor import lowering as inductor_lowering
    from torch._inductor import metrics

    from torchsmith.oracle import runtime
    from torchsmith.verdict import Phase

    lowered: Counter[str] = Counter()
    fell_back: Counter[str] = Counter()
    original = inductor_graph.GraphLowering.call_function

    def call_function(self: Any, target: Any, args: Any, kwargs: Any) -> Any:
        result = original(self, target, args, kwargs)
        if isinstance(target, torch._ops.OpOverload):
            into = fell_back if target in inductor_lowering.fallbacks else lowered
            into[str(target)] += 1
        return result

    counters.clear()
    metrics.reset()
    report: dict[str, Any] = {"ok": True, "error": None}
    patched = [
        inductor_config.patch(fx_graph_cache=False),
        torch._functorch.config.patch(enable_autograd_cache=False),
    ]
    inductor_graph.GraphLowering.call_function = call_function  # type: ignore[method-assign]
    tracer = _line_tracer() if lines else None
    try:
        with contextlib.ExitStack() as stack:
            for p in patched:
                stack.enter_context(p)
            if tracer is not None:
                tracer.start()
                stack.callback(tracer.stop)
            stack.enter_context(runtime.compiler_config(options))
            emit(Phase.LOAD)
            loaded = runtime.load(program, options.seed)
            emit(Phase.COMPILED)
            runtime.run_model(
                loaded,
                options,
                backend=backend,
                dtype=runtime.resolve_dtype(options.dtype),
                grad=options.grad,
            )
    except Exception as e:  # coverage is best effort: the oracle judges failures, not this job
        report.update(ok=False, error=f"{type(e).__name__}: {str(e)[:300]}")
    finally:
        inductor_graph.GraphLowering.call_function = original  # type: ignore[method-assign]
    report["counters"] = {g: dict(c) for g, c in counters.items() if c}
    report["lowerings"] = dict(lowered)
    report["fallbacks"] = dict(fell_back)
    report["metrics"] = {name: int(getattr(metrics, name, 0) or 0) for name in _METRICS}
    report["metrics"]["fused_nodes"] = max(
        0, int(metrics.ir_nodes_pre_fusion) - int(metrics.generated_kernel_count)
    )
    report["metrics"]["vec_kernels"] = int(metrics.generated_cpp_vec_kernel_count)
    report["metrics"]["outer_loop_fusion"] = len(metrics.cpp_outer_loop_fused_inner_counts)
    if tracer is not None:
        report["lines"] = _new_lines(tracer)
    return report


def _line_tracer() -> Any:
    """A coverage.py measurement of the :data:`TRACED` packages, not yet started."""
    import os

    import coverage
    import torch

    root = os.path.dirname(torch.__file__)
    include = [os.path.join(root, pkg, "*") for pkg in TRACED]
    return coverage.Coverage(data_file=None, include=include, config_file=False)


def _new_lines(tracer: Any) -> dict[str, list[int]]:
    """The lines ``tracer`` measured that this worker has not reported yet, by file relative to
    torch's folder; remembered as reported."""
    import os

    import torch

    root = os.path.dirname(torch.__file__)
    data = tracer.get_data()
    out: dict[str, list[int]] = {}
    for path in data.measured_files():
        rel = os.path.relpath(path, root)
        seen = _REPORTED.setdefault(rel, set())
        fresh = set(data.lines(path) or ()) - seen
        if fresh:
            seen |= fresh
            out[rel] = sorted(fresh)
    return out


# -- in the parent ------------------------------------------------------------------------------
def report_features(report: dict[str, Any]) -> Counter[str]:
    """The feature counts in a :func:`collect` report."""
    feats: Counter[str] = Counter()
    groups = report.get("counters") or {}
    for key, n in (groups.get("inductor") or {}).items():
        if n and not key.startswith(_BOOKKEEPING):
            feats[f"inductor:{key}"] += int(n)
    for key, n in (groups.get("aten_mm_info") or {}).items():
        feats[f"mm:{key.split('_', 1)[0]}"] += int(n)
    breaks = sum(int(n) for n in (groups.get("graph_break") or {}).values())
    if breaks:
        feats["dynamo:graph_break"] += breaks
    graphs = int((groups.get("stats") or {}).get("unique_graphs", 0))
    if graphs > 1:
        feats["dynamo:graphs_multi"] += 1
    for key, n in (report.get("lowerings") or {}).items():
        feats[f"lowering:{key}"] += int(n)
    for key, n in (report.get("fallbacks") or {}).items():
        feats[f"fallback:{key}"] += int(n)
    for key, n in (report.get("metrics") or {}).items():
        if n:
            feats[f"metric:{key}"] += int(n)
    return feats


class WorkerClient:
    """The generator's own worker, for eager checks (when the fuzz loop gives none) and coverage.

    Started on first use; pass ``worker`` to share one (tests, benches).
    """

    def __init__(self, worker: Worker | None = None, options: CheckOptions | None = None) -> None:
        self._worker = worker
        self._own = worker is None
        self.options = options or CheckOptions(timeout=60.0, localize=False)

    @property
    def worker(self) -> Worker:
        if self._worker is None:
            from torchsmith.execute.worker import Worker

            self._worker = Worker(memory_mb=self.options.memory_mb)
            atexit.register(self.close)
        return self._worker

    def eager(self, program: Program) -> CheckResult:
        from torchsmith.check import check_eager

        return check_eager(program, self.options, self.worker)

    def coverage(self, program: Program, backend: str = "inductor") -> Counter[str]:
        """Inductor features of one compile of ``program`` (empty when the job fails)."""
        from torchsmith.execute.protocol import Request

        request = Request.call(COLLECT_FUNCTION, program, self.options, backend=backend)
        outcome = self.worker.run(request, self.options.timeout, self.options.memory_mb)
        if outcome.status != "result" or not outcome.result:
            return Counter()
        return report_features(outcome.result)

    def close(self) -> None:
        if self._own and self._worker is not None:
            self._worker.close()
            self._worker = None


def compiler_lines(
    worker: Worker, program: Program, options: CheckOptions, backend: str = "inductor"
) -> dict[str, list[int]] | None:
    """Run :func:`collect` with ``lines=True`` in ``worker``: the compiler lines the program's
    compile ran that the worker had not reported before (file -> lines), or None when the job
    did not come back (a death, a timeout). A program whose compile raises still reports the
    lines it ran up to the error."""
    from torchsmith.execute.protocol import Request

    request = Request.call(COLLECT_FUNCTION, program, options, backend=backend, lines=True)
    outcome = worker.run(request, options.timeout, options.memory_mb)
    if outcome.status != "result" or not outcome.result:
        return None
    return dict(outcome.result.get("lines") or {})


class Coverage:
    """Feature counts over the programs a generator produced."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.programs = 0

    def add(self, features: Iterable[str] | Counter[str]) -> None:
        self.programs += 1
        self.counts.update(features)

    def merged(self, extra: Counter[str] | None) -> Counter[str]:
        """Own counts plus the campaign's (``GenContext.coverage``: bare op names or keys)."""
        out = Counter(self.counts)
        for key, n in (extra or {}).items():
            if isinstance(n, int):
                out[key if ":" in key else op_key(key)] += n
        return out

    def summary(self, top: int = 8) -> dict[str, Any]:
        kinds: Counter[str] = Counter(k.split(":", 1)[0] for k in self.counts)
        return {
            "programs": self.programs,
            "distinct": dict(sorted(kinds.items())),
            "most_common": self.counts.most_common(top),
        }


def target_hits(target: Target, counts: Counter[str]) -> float:
    """How much of ``target`` has been reached: mean count over its features."""
    feats = target.all_features
    if not feats:
        return 0.0
    return sum(counts.get(f, 0) for f in feats) / len(feats)


def steer(
    targets: Sequence[Target], counts: Counter[str], chosen: Counter[str], rng: random.Random
) -> Target:
    """Pick a target, favouring those whose features are rarely hit and that were rarely asked
    for: weight ``1 / (1 + mean feature count + times chosen)``."""
    weights = [1.0 / (1.0 + target_hits(t, counts) + chosen.get(t.name, 0)) for t in targets]
    return rng.choices(list(targets), weights=weights, k=1)[0]


def rare_ops(target: Target, counts: Counter[str], rng: random.Random, k: int = 4) -> list[str]:
    """The target's ``k`` least-covered ops (ties in random order)."""
    ops = list(target.ops)
    rng.shuffle(ops)
    ops.sort(key=lambda o: counts.get(op_key(o), 0))
    return ops[:k]


def common_ops(counts: Counter[str], k: int = 5, min_count: int = 3) -> list[str]:
    """The ``k`` most used ops so far (seen at least ``min_count`` times)."""
    ops = [(n, key[3:]) for key, n in counts.items() if key.startswith("op:") and n >= min_count]
    ops.sort(key=lambda t: (-t[0], t[1]))
    return [name for _, name in ops[:k]]
