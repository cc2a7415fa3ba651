"""A pytest helper for your own models: ``assert_compiles_like_eager(model, inputs)``.

.. code-block:: python

    from torchsmith.testing import assert_compiles_like_eager

    def test_my_block_compiles():
        assert_compiles_like_eager(MyBlock(64), [torch.randn(8, 64)], grad=True)

The object is judged as ``torchsmith check`` judges a program (eager twice, float64 eager as
the reference, ``torch.compile``, PyTorch's ``same()`` tolerance and the sensitivity probe), in
the library's shared crash-safe worker process, so a segfault or a hang in the compiler fails
the test instead of killing pytest. How the object gets to the worker, and what cannot
(classes or functions defined inside a function, lambdas, ``__main__``):
:mod:`torchsmith.program.live`.

Invariants: returns the :class:`~torchsmith.verdict.CheckResult` on ``pass`` (and on a verdict
listed in ``allow``); raises ``AssertionError`` on every other verdict, with the verdict, the
stage, the reason and the evidence (figures against fp64, confidence, the backend ladder):

* a compiler bug (``crash``, ``mismatch``, ``nan-mismatch``, ``meta-mismatch``,
  ``imprecise``, a compiled run that hangs or dies) says ``torch.compile differs from eager``;
* a verdict that means the test could not be judged (``invalid``: eager itself raises;
  ``nondeterministic``: eager differs from itself; ``unstable``: eager moves as far as compiled
  under rounding noise; ``limit``, or eager hanging or dying) says ``cannot be judged``: a
  test that cannot tell must not pass silently. ``allow=("imprecise",)`` (verdict values)
  lets a verdict through.

Raises ``TypeError`` before any run for an object the worker cannot load, or an unknown option.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from torchsmith.check import check
from torchsmith.program.live import live_program
from torchsmith.report.console import confidence_line, headline
from torchsmith.verdict import CheckResult, Verdict


def explain(result: CheckResult) -> str:
    """The failure message: headline, stage, ladder, figures against fp64, confidence."""
    what = "torch.compile differs from eager" if result.is_bug else "cannot be judged"
    lines = [f"{what}: {headline(result)}"]
    ev = result.evidence
    if result.stage:
        lines.append(f"  stage: {result.stage.value}")
    if result.ladder:
        lines.append("  ladder: " + ", ".join(f"{k} {v}" for k, v in result.ladder.items()))
    figs = ev.get("figures") or {}
    for label, key in (("compiled", "compiled_vs_fp64"), ("eager", "eager_vs_fp64")):
        f = figs.get(key)
        if isinstance(f, dict) and "max_abs" in f:
            lines.append(
                f"  {label} vs fp64: max abs {f['max_abs']:.4g}, max rel {f.get('max_rel', 0):.4g}"
            )
    if ev.get("confidence"):
        lines.append(f"  confidence: {confidence_line(ev['confidence'])}")
    for key in ("user_line", "torch_frame", "message"):
        if ev.get(key) and str(ev[key]) not in result.reason:
            lines.append(f"  {key.replace('_', ' ')}: {str(ev[key]).splitlines()[0][:300]}")
    if not result.is_bug:
        hint = {
            Verdict.INVALID: "eager itself raises: fix the model or its inputs",
            Verdict.NONDETERMINISTIC: "two seeded eager runs differ: nothing to compare against",
            Verdict.UNSTABLE: "eager moves as far as compiled under rounding noise",
        }.get(result.verdict, "the run could not be completed outside torch.compile")
        lines.append(f"  ({hint})")
    return "\n".join(lines)


def assert_compiles_like_eager(
    model_or_fn: Any,
    inputs: list[Any] | tuple[Any, ...],
    *,
    kwargs: dict[str, Any] | None = None,
    allow: Iterable[str] = (),
    **check_options: Any,
) -> CheckResult:
    """Judge ``model_or_fn(*inputs, **kwargs)`` compiled against eager; raise AssertionError
    unless the verdict is ``pass`` (or in ``allow``). ``check_options`` are
    :class:`~torchsmith.options.CheckOptions` fields: ``grad=True``, ``dtype="float16"``,
    ``dynamic=True``, ``fullgraph=True``, ``backend=``, ``mode=``,
    ``config={"inductor.freezing": True}``, ``timeout=``, ... (see the module docstring)."""
    allowed = {Verdict(v) for v in allow}
    with tempfile.TemporaryDirectory(prefix="torchsmith-testing-") as folder:
        program = live_program(model_or_fn, inputs, Path(folder), kwargs=kwargs)
        result = check(program, **check_options)
    if result.verdict is Verdict.PASS or result.verdict in allowed:
        return result
    raise AssertionError(explain(result))


__all__ = ["assert_compiles_like_eager", "explain"]
