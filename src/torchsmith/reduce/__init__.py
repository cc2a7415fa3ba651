"""Source-level reduction of torch.compile failures: smaller programs that fail the same way.

Public API::

    reduce_program(program, options, *, workers=1, time_budget=300.0) -> ReductionResult
    reduce_finding(finding, worker, *, options=None, time_budget=120.0) -> Finding | None
    finding_options(finding) -> CheckOptions  (a finding's options less its declarations)

See :class:`~torchsmith.reduce.driver.Reducer` for the contract and ``notes/reduction.md`` for
the design.
"""

from torchsmith.reduce.driver import (
    Reducer,
    ReductionResult,
    finding_options,
    reduce_finding,
    reduce_program,
    script_reproduces,
    write_reduced,
    write_repro,
)

__all__ = [
    "Reducer",
    "ReductionResult",
    "finding_options",
    "reduce_finding",
    "reduce_program",
    "script_reproduces",
    "write_reduced",
    "write_repro",
]
