"""``check``: the verdict on one program, from the parent's side.

Sends the differential check to a crash-safe worker, turns whatever comes back (a result, a
timeout, a death) into a :class:`~torchsmith.verdict.CheckResult`, then localizes compiler bugs on
the backend ladder and, with ``bisect``, runs Inductor's ``CompilerBisector``.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from torchsmith.execute.protocol import JobOutcome, Request
from torchsmith.execute.worker import Worker
from torchsmith.localize import localize, same_failure, stage_of
from torchsmith.options import CheckOptions
from torchsmith.oracle import native_random
from torchsmith.program.format import Program, ProgramFormatError, declared_settings
from torchsmith.program.load import as_script, load_program
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict


class CheckError(RuntimeError):
    """torchsmith could not check the program (bad option, internal error): not a verdict."""


def _phase(value: str | None) -> Phase | None:
    return Phase(value) if value else None


def outcome_to_result(outcome: JobOutcome, program: Program, options: CheckOptions) -> CheckResult:
    """Turn a worker job's outcome into a verdict; deaths and timeouts keep their phase.

    Raises :class:`CheckError` when torchsmith itself failed inside the worker (never a verdict).
    """
    phase = _phase(outcome.phase)
    if outcome.status == "result":
        r = outcome.result or {}
        res = CheckResult(
            verdict=Verdict(r["verdict"]),
            phase=_phase(r.get("phase")),
            reason=r.get("reason", ""),
            evidence=r.get("evidence", {}),
            timings=r.get("timings", {}),
        )
    elif outcome.status == "timeout" and phase is Phase.PROBE:
        res = CheckResult(
            verdict=Verdict.LIMIT,
            phase=phase,
            reason=f"the sensitivity probe did not finish within {outcome.timeout:g} s:"
            " torchsmith's limit, not the program's; raise --timeout (or --no-probe)",
            evidence={"timeout_s": outcome.timeout},
        )
    elif outcome.status == "timeout":
        res = CheckResult(
            verdict=Verdict.TIMEOUT,
            phase=phase,
            reason=f"no result within {outcome.timeout:g} s{outcome.where}",
            evidence={"timeout_s": outcome.timeout},
        )
    elif outcome.status == "died" and outcome.memory_exceeded and phase is not Phase.COMPILED:
        res = CheckResult(
            verdict=Verdict.LIMIT,
            phase=phase,
            reason=f"the check needed more than the memory cap of {outcome.memory_mb} MiB"
            f"{outcome.where} (not a compiled run): torchsmith's limit, not the program's;"
            " raise --memory-mb to check it",
            evidence=outcome.death_evidence(),
        )
    elif outcome.status == "died":
        res = CheckResult(
            verdict=Verdict.DIED,
            phase=phase,
            reason=f"the worker {outcome.how_died()}{outcome.where}",
            evidence=outcome.death_evidence(),
        )
    else:
        raise CheckError(f"torchsmith failed inside the worker: {outcome.error.strip()}")
    res.program, res.digest = program.name, program.digest
    res.options = options.to_dict()
    res.timings["wall"] = round(outcome.wall, 3)
    if res.verdict is not Verdict.PASS:
        res.log_tail = outcome.log_tail
    return res


def run_job(
    worker: Worker, request: Request, options: CheckOptions, timeout: float | None = None
) -> CheckResult:
    """One check-shaped job (``check`` or ``eager``) in ``worker``, as a verdict."""
    assert request.program is not None
    options = effective_options(request.program, options)
    request = dataclasses.replace(request, options=options)
    outcome = worker.run(request, timeout or options.timeout, options.memory_mb)
    return outcome_to_result(outcome, request.program, options)


def effective_options(program: Program, options: CheckOptions) -> CheckOptions:
    """``options`` with what ``program`` declares it is compiled with (see
    :meth:`CheckOptions.with_declared`)."""
    return options.with_declared(*declared_settings(program.source))


def check_program(
    program: Program, options: CheckOptions | None = None, worker: Worker | None = None
) -> CheckResult:
    """The verdict on ``program``: run, judge, and for compiler bugs localize (and bisect)."""
    options = options or CheckOptions()
    own = worker is None
    worker = worker or Worker(memory_mb=options.memory_mb)
    try:
        result = _check(program, options, worker)
        result.torch = result.torch or worker.torch_version or ""
        return result
    finally:
        if own:
            worker.close()


#: Signals a program does not send itself: a worker dying of one was killed from outside (an
#: operator's ``pkill``, a session ending), unless its own memory cap did it.
EXTERNAL_SIGNALS = frozenset({"SIGTERM", "SIGKILL", "SIGHUP", "SIGINT"})


def _killed_from_outside(result: CheckResult) -> bool:
    ev = result.evidence
    return (
        result.verdict is Verdict.DIED
        and str(ev.get("signal")) in EXTERNAL_SIGNALS
        and not ev.get("memory_exceeded")
    )


def _cache_file_vanished(result: CheckResult) -> bool:
    """A compiled kernel of Inductor's on-disk cache could not be opened (seen when another
    process shared the cache folder)."""
    message = str(result.evidence.get("message", ""))
    return (
        result.verdict is Verdict.CRASH
        and "cannot open shared object file" in message
        and "torchinductor" in message
    )


def _check(program: Program, options: CheckOptions, worker: Worker) -> CheckResult:
    options = effective_options(program, options)
    result = run_job(worker, Request.check(program, options), options)
    if _killed_from_outside(result) or _cache_file_vanished(result):
        # Another process's doing (a signal; a shared Inductor cache file removed or not yet
        # written): what a second run gives counts.
        result = run_job(worker, Request.check(program, options), options)
    if _never_compiles(result) and (imported := _imported(program)) is not None:
        # A script that never calls what it compiles (it only defines inputs, or exports):
        # what it tests is what the importer reads from its text.
        return _check(imported, options, worker)
    if result.verdict is Verdict.PASS and native_random.needs_native_run(
        program.source, options.config
    ):
        # random numbers drawn: Inductor's own generator (fallback_random=False), judged on
        # behaviour and output metadata only (oracle/native_random.py)
        native = options.replace(config={**options.config, native_random.KEY: False})
        second = run_job(worker, Request.check(program, native), native)
        if second.is_bug:
            result, options = second, native
        else:  # what the second run gave ("pass"; "invalid" when it could not be judged)
            result.evidence["native_random"] = second.verdict.value
    if not result.is_bug:
        return result
    if options.localize:

        def run_rung(backend: str) -> CheckResult:
            return run_job(worker, Request.check(program, options, backend), options)

        result.stage, result.ladder = localize(result, options.backend, run_rung)
        cache_probe(program, options, worker, result)
    else:
        result.stage = stage_of(options.backend)
    if options.bisect and options.backend == "inductor" and result.stage is Stage.INDUCTOR:
        o = worker.run(
            Request.bisect(program, options, result.verdict.value),
            options.timeout * 10,
            options.memory_mb,
        )
        if o.status == "result":
            result.bisect = o.result
        else:
            result.bisect = {"found": False, "error": o.status, "detail": o.error[-500:]}
    return result


#: The config entry that turns every compile cache off (FX graph, AOTAutograd, dynamic-shape
#: profiles): an alias of ``torch.compiler.config.force_disable_caches``.
CACHES_OFF = "inductor.force_disable_caches"
#: The ladder entry the cache probe writes.
CACHES_OFF_RUNG = "inductor-no-cache"


def cache_probe(
    program: Program, options: CheckOptions, worker: Worker, result: CheckResult
) -> None:
    """Name a failure an on-disk compile cache made :attr:`Stage.CACHE`, in place.

    Inductor's and AOTAutograd's caches outlive the process: a failure can come from an
    artifact another program compiled (an entry for aliased inputs served to a program whose
    inputs do not alias, PR #184694), and its repro then fails only beside that cache. Rule: a
    failure the Inductor rung owns is run again with the caches off; when that passes and a
    second cached run fails the same way (so a flaky failure passing by chance is not called
    the cache's), the stage is the cache. Costs one compile per Inductor failure, two when the
    cache did it; nothing when the caches are off already. A torch without the switch (the
    worker refuses the entry) leaves the result as it is, its ladder saying ``not run``.
    """
    if (
        result.stage is not Stage.INDUCTOR
        or options.backend != "inductor"
        or options.config.get(CACHES_OFF)
    ):
        return
    fresh = options.replace(config={**options.config, CACHES_OFF: True})
    try:
        again = run_job(worker, Request.check(program, fresh), fresh)
    except CheckError:
        result.ladder[CACHES_OFF_RUNG] = "not run"
        return
    result.ladder[CACHES_OFF_RUNG] = again.verdict.value
    if again.verdict is not Verdict.PASS:
        return
    if same_failure(result, run_job(worker, Request.check(program, options), options)):
        result.stage = Stage.CACHE
        result.evidence["compile_cache"] = (
            "passes with the compile caches off (torch.compiler.config.force_disable_caches);"
            " fails again with them on: an artifact from the on-disk cache"
        )


def _never_compiles(result: CheckResult) -> bool:
    return (
        result.verdict is Verdict.INVALID
        and result.phase is Phase.LOAD
        and ("never calls a compiled" in result.reason)
    )


def _imported(script: Program) -> Program | None:
    """A script's canonical import (notes say why it was taken), or None when it has none."""
    from torchsmith.program.foreign import import_script

    try:
        program = import_script(script.source, name=script.name, path=script.path)
    except ProgramFormatError:
        return None
    note = "checked as imported: the script never calls a compiled function or module"
    return dataclasses.replace(program, notes=(note, *program.notes))


def check_eager(program: Program, options: CheckOptions, worker: Worker) -> CheckResult:
    """Only the eager half of the check: ``pass`` (valid, deterministic), ``invalid``, ... ."""
    return run_job(worker, Request.eager(program, options), options)


# -- the library call ---------------------------------------------------------------------------
_default_worker: Worker | None = None


def _shared_worker() -> Worker:
    global _default_worker
    if _default_worker is None:
        _default_worker = Worker()
        atexit.register(_default_worker.close)
    return _default_worker


def program_from_module(model: Any, inputs: list[Any] | tuple[Any, ...]) -> Program:
    """Wrap a live model and inputs as a program: they are saved and loaded by the worker.

    The model's class must be importable by the worker (defined in a module on ``sys.path``).
    """
    import torch

    fd, path = tempfile.mkstemp(prefix="torchsmith-model-", suffix=".pt")
    os.close(fd)
    torch.save({"model": model, "inputs": list(inputs)}, path)
    source = f"""import copy
import torch

_SAVED = torch.load({path!r}, weights_only=False)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = copy.deepcopy(_SAVED["model"])

    def forward(self, *args):
        return self.inner(*args)


def get_inputs():
    return list(_SAVED["inputs"])
"""
    return Program(source=source, name=type(model).__name__, origin="library")


def check(
    model_or_path: Any, inputs: list[Any] | tuple[Any, ...] | None = None, **options: Any
) -> CheckResult:
    """Check a program file, a :class:`Program`, or a live ``nn.Module`` with ``inputs``.

    ``options`` are :class:`~torchsmith.options.CheckOptions` fields (``backend``, ``dtype``,
    ``config``, ``timeout``, ...). Runs in a shared worker process that is reused across calls.
    """
    opts = CheckOptions(**options)
    if isinstance(model_or_path, Program):
        program = model_or_path
    elif isinstance(model_or_path, str | Path):
        program = load_program(model_or_path, device=opts.device)
    else:
        if inputs is None:
            raise TypeError("check(model, inputs): inputs are required with a live model")
        program = program_from_module(model_or_path, inputs)
    return check_program(program, opts, _shared_worker())


def check_files(
    paths: list[Path],
    options: CheckOptions,
    repro_dir: Path | None = None,
    python: str | None = None,
    canary: bool = False,
) -> Iterator[tuple[Path, CheckResult | None, str | None]]:
    """Check several files with one worker; a file that cannot be read yields an error string.

    A program that kills, hangs or exhausts its worker gets its verdict and the next program a
    fresh worker: the run always goes on. ``python`` runs the worker under another interpreter
    (another venv, another torch). With ``canary``, a crash, death or hang is screened by the
    path canary (:mod:`torchsmith.canary`, one check per path): when a trivial program on the
    same path fails the same way, ``evidence["path_wide"]`` says so (the verdict stands: the
    program does fail; the cause is the machine's setup or the whole path).
    """
    from torchsmith.canary import Canary
    from torchsmith.program.render import render_script

    screen = Canary() if canary else None

    with Worker(memory_mb=options.memory_mb, python=python) as worker:
        for path in paths:
            try:
                program = load_program(path, device=options.device)
            except ProgramFormatError as e:
                yield path, None, str(e)
                continue
            result = _check(program, options, worker)
            if screen is not None and result.is_bug:
                why = screen.screen(program, result, options, lambda p, o: _check(p, o, worker))
                if why:
                    result.evidence["path_wide"] = why
            if repro_dir is not None and result.is_bug:
                repro_dir.mkdir(parents=True, exist_ok=True)
                script = repro_dir / f"{program.name}_repro.py"
                opts = effective_options(program, options)
                script.write_text(render_script(program, opts, header=_repro_header(result)))
                result.evidence["repro"] = str(script)
            yield path, result, None


def _repro_header(result: CheckResult) -> str:
    stage = f" at {result.stage.value}" if result.stage else ""
    return f"torchsmith repro: {result.program}: {result.verdict.value}{stage}\n{result.reason}"


def list_sites(path: str | Path, device: str = "cpu", timeout: float = 300.0) -> dict[str, Any]:
    """Run the script at ``path`` once in eager, in a worker, and say what it compiles and calls
    (``{"sites": [{"site", "compiled_with", "calls"}], "error"}``). Raises
    :class:`ProgramFormatError` when it cannot be run at all."""
    p = Path(path)
    if not p.exists():
        raise ProgramFormatError(f"{p}: no such file")
    program = as_script(p.read_text(), p.stem, str(p), device)
    options = CheckOptions(timeout=timeout, device=device)
    with Worker(memory_mb=options.memory_mb) as worker:
        outcome = worker.run(
            Request.call("torchsmith.oracle.script:sites_job", program, options), timeout
        )
    if outcome.status != "result" or outcome.result is None:
        raise ProgramFormatError(outcome.failure(p.name) or "the worker gave no result")
    return outcome.result
