"""Where a compile's time goes, from torch's own counters (``dynamo_timed`` metrics).

:data:`STAGES` maps the stages a reader knows (Dynamo trace, AOTAutograd, Inductor, codegen,
the C++ compile, guards) to the ``torch._dynamo.utils.compilation_time_metrics`` entries that
time them; :func:`reset` before a compiled run and :func:`stages` after give its breakdown.
Nested stages overlap (``total`` holds the others), so they are not summed.
"""

from __future__ import annotations

#: ``compile_times()`` entries worth a column, in pipeline order: (label, dynamo_timed name).
STAGES = (
    ("total", "_compile.compile_inner"),
    ("dynamo trace", "bytecode_tracing"),
    ("backend", "OutputGraph.call_user_compiler"),
    ("aot autograd", "create_aot_dispatcher_function"),
    ("inductor", "compile_fx_inner"),
    ("codegen", "GraphLowering.codegen"),
    ("c++ compile", "compile_file"),
    ("guards", "build_guards"),
)


def stage_times(metrics: dict[str, float]) -> dict[str, float]:
    """The :data:`STAGES` present in aggregated ``compile_times`` metrics."""
    return {label: metrics[key] for label, key in STAGES if key in metrics}


def reset() -> None:
    import torch._dynamo.utils as du

    du.compilation_time_metrics.clear()


def metrics() -> dict[str, float]:
    """Seconds per ``dynamo_timed`` name since :func:`reset`."""
    import torch._dynamo.utils as du

    return {k: round(sum(v), 4) for k, v in du.compilation_time_metrics.items()}


def stages() -> dict[str, float]:
    return stage_times(metrics())
