"""The path canary: does a trivial program fail the same way on the same compile path?

Some failures are not the program's. On one GPU machine every AOTInductor package segfaulted
while loading, whatever the model (a plain ``export`` + ``aoti_compile_and_package`` of
``x.neg() + 1`` too): a CUDA campaign recorded nine programs as one "new bug". On another, the
system's gold could not open the compiler's own ``libstdc++.so``, and 34 programs became C++
compile errors of Inductor's. Such a failure is the machine's setup, or a path broken outright
(a release whose ``cpp_wrapper`` compiles nothing): one fact about the path, not a bug of each
program that met it, and not something to hand a maintainer as a reduced repro.

The canary is a program too small to fail on a working path: a linear layer, ``tanh``, a scale
and a shift (no ``relu``, which the injected Inductor faults key on, no Python set, which
Dynamo's injected fault keys on). It takes the failing program's path: the same check options
(device, dtype, backend, mode, settings, gradients) and the program's declared
``compile_kwargs``, ``compile_config`` and ``check_options`` (``backend: aoti`` sends it through
export and AOTInductor).

Rule (:func:`explains`): a behaviour failure (crash, died, timeout, limit) is *path-wide* when
the canary, checked under the same options, fails with the same verdict at the same stage. A
wrong value is never screened: a trivial program computing a wrong value is a compiler bug
worth its own report, and the canary avoids the ops that carry one. Invariants: a canary that
passes, is invalid, or fails another way explains nothing; one canary run per path key
(:func:`path_key`) per :class:`Canary`, whatever the number of findings it screens.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, declared_settings
from torchsmith.verdict import CheckResult

CANARY_SOURCE = '''"""torchsmith's path canary: too small to fail on a working compile path."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return torch.tanh(self.lin(x)) * 2 + 1


def get_inputs():
    return [torch.randn(3, 4, generator=torch.Generator().manual_seed(0))]
'''

#: Option fields that do not choose a path (the seed draws values; limits only bound a run).
_NOT_PATH = ("seed", "timeout", "memory_mb", "only")


def canary_for(program: Program) -> Program:
    """The canary on ``program``'s path: :data:`CANARY_SOURCE` plus the three settings dicts
    ``program`` declares (each only where it declares one)."""
    names = ("compile_kwargs", "compile_config", "check_options")
    lines = [
        f"{name} = {value!r}"
        for name, value in zip(names, declared_settings(program.source), strict=True)
        if value
    ]
    source = CANARY_SOURCE + ("\n" + "\n".join(lines) + "\n" if lines else "")
    return Program(source=source, name="path_canary", origin="generated", notes=("canary",))


def path_key(program: Program, options: CheckOptions) -> str:
    """What decides the path: the options that choose one and the program's declared settings."""
    opts = {k: v for k, v in options.to_dict().items() if k not in _NOT_PATH}
    return json.dumps([opts, declared_settings(program.source)], sort_keys=True, default=str)


def explains(failure: CheckResult, canary: CheckResult) -> str | None:
    """Why ``failure`` is path-wide given the canary's result on its path, or None."""
    if not failure.verdict.is_behaviour or not canary.is_bug:
        return None
    if canary.verdict is not failure.verdict or canary.stage != failure.stage:
        return None
    stage = failure.stage.value if failure.stage else "?"
    return (
        f"a trivial program on the same path fails the same way ({canary.verdict.value} at"
        f" {stage}: {' '.join(canary.reason.split())[:200]}): the machine's setup or the whole"
        " path, not this program"
    )


class Canary:
    """Screens failures with one canary check per path (see the module docstring)."""

    def __init__(self) -> None:
        self._seen: dict[str, CheckResult] = {}

    @property
    def runs(self) -> int:
        """Canary checks run so far (one per path key)."""
        return len(self._seen)

    def screen(
        self,
        program: Program,
        failure: CheckResult,
        options: CheckOptions,
        check: Callable[[Program, CheckOptions], CheckResult],
    ) -> str | None:
        """Why ``failure`` of ``program`` under ``options`` is path-wide, or None; ``check``
        runs the canary when its path has not been tried (a campaign passes its crash-safe
        worker's check)."""
        if not failure.verdict.is_behaviour:
            return None
        key = path_key(program, options)
        if key not in self._seen:
            self._seen[key] = check(canary_for(program), options.replace(only=None, bisect=False))
        return explains(failure, self._seen[key])
