"""Acceptance of a reduction's start and end: is the failure stable, does the result show
alone?

* :func:`settle_target`: the original is re-run under the stage's rung a few times before any
  candidate is tried; a failure that does not show every time is flaky (the driver reports its
  rate and does not reduce). When the rung gives the same verdict and exception type with
  another message than the full check did (a backend name in it), the key is taken from the
  rung's own run: candidates run there too.
* :func:`script_reproduces`: the rendered standalone script, run alone in a fresh interpreter,
  exits 1 with the target's ``VERDICT:`` kind (and, for a crash, its exception type in the
  traceback). The driver makes it part of accepting the final result.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

from torchsmith.dedup import crash_frame, same_failure_key
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.program.render import render_script
from torchsmith.reduce.interesting import Judge, Target, failure_key
from torchsmith.verdict import Verdict

Log = Callable[[str], None]


def script_shows(stdout: str, verdict: str) -> bool:
    """Whether a rendered script's output shows ``verdict`` (a :class:`Verdict` value). The
    script (``program/render.py``) names a crash and each wrong-output verdict by its own value:
    a line ``VERDICT: <value>`` (then a space or the end); for the verdicts it does not name, any
    ``VERDICT:`` line. (Acceptance once looked for "mismatch" for a nan-mismatch and a
    meta-mismatch, so neither kind was ever confirmed and the reducer stepped back.)"""
    v = Verdict(verdict)
    if not (v is Verdict.CRASH or v.is_wrong_output):
        return "VERDICT:" in stdout
    head = f"VERDICT: {v.value}"
    return any(
        line.startswith(head) and line[len(head) :][:1] in ("", " ") for line in stdout.splitlines()
    )


def script_reproduces(
    program: Program,
    options: CheckOptions,
    timeout: float | None = None,
    target: Target | None = None,
) -> bool:
    """Render ``program`` as a standalone script, run it alone, and say whether it exits 1;
    with ``target``, also that its ``VERDICT:`` is the target's kind and, for a crash, that
    the traceback names the target's exception type."""

    with tempfile.TemporaryDirectory(prefix="torchsmith-repro-") as d:
        path = os.path.join(d, "repro.py")
        with open(path, "w") as f:
            f.write(render_script(program, options))
        env = dict(os.environ)
        env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
        try:
            proc = subprocess.run(
                [sys.executable, path],
                capture_output=True,
                text=True,
                timeout=timeout or options.timeout,
                env=env,
                cwd=d,
            )
        except subprocess.TimeoutExpired:
            return False
        if proc.returncode != 1 or "VERDICT:" not in proc.stdout:
            return False
        if target is None:
            return True
        if not script_shows(proc.stdout, target.verdict.value):
            return False
        if target.verdict.value == "crash" and len(target.key) > 1 and target.key[1]:
            return target.key[1] in proc.stderr
        return True


def settle_target(
    judge: Judge, program: Program, target: Target, runs: int, log: Log
) -> tuple[Target, int]:
    """Re-run ``program`` ``runs`` times under the target's rung: the new target (re-keyed when
    the rung gives the same verdict and exception type with another message than the full
    check did, e.g. a backend name in it, or the wrapped exception itself; a stock message's
    frame is the rung's) and how many runs showed it."""
    results = [judge.run(program, target.rung) for _ in range(max(1, runs))]
    if not any(target.matches(r) for r in results):
        r0 = results[0]
        same_exc = (
            target.verdict is not Verdict.CRASH
            or failure_key(r0)[1] == target.key[1]
            or same_failure_key(failure_key(r0), target.key)  # a wrapper looked through
        )
        if r0.is_bug and r0.verdict is target.verdict and same_exc:
            log(f"re-keyed on the {target.rung} rung: {'/'.join(failure_key(r0)[1:])}")
            frame = crash_frame(r0) if target.frame else ""  # the rung's own frame
            target = dataclasses.replace(target, key=failure_key(r0), frame=frame)
            judge.target = target
    return target, sum(target.matches(r) for r in results)
