"""Run generated programs in eager (and optionally under torch.compile), crash-safely.

:func:`validate_seeds` (the parent, behind ``bench/validity.py``) sends one worker job per seed
(:func:`validate_job`, through the worker protocol): generate the program, run it in eager with
fresh parameters, and compile it when asked. A seed whose program kills or hangs the worker is
recorded against that seed (``crash`` or ``timeout``) and the next seed gets a fresh worker.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from typing import Any

from torchsmith.generate.graph.options import GenOptions


def _options_from(d: dict[str, Any]) -> GenOptions:
    d = dict(d)
    if "dtypes" in d:
        d["dtypes"] = tuple(d["dtypes"])
    return GenOptions(**d)


def options_to_dict(opts: GenOptions) -> dict[str, Any]:
    d = dataclasses.asdict(opts)
    d["dtypes"] = list(opts.dtypes)
    return d


def _outputs(out: Any) -> tuple:
    return out if isinstance(out, tuple) else (out,)


def check_one(seed: int, opts: GenOptions, compile_it: bool) -> dict[str, Any]:
    """Generate, run in eager (fresh parameters, as the checker builds them) and maybe compile."""
    import torch

    from torchsmith.generate.graph import generate_source, header_ops

    rec: dict[str, Any] = {"seed": seed, "status": "ok"}
    t0 = time.perf_counter()
    try:
        src = generate_source(seed, opts)
    except Exception as e:
        rec.update(status="gen_error", error=f"{type(e).__name__}: {e}"[:400])
        return rec
    rec["gen_s"] = time.perf_counter() - t0
    rec["ops"] = sorted(header_ops(src))
    rec["lines"] = src.count("\n        ") - 1
    t1 = time.perf_counter()
    try:
        ns: dict[str, Any] = {}
        exec(compile(src, f"gen_{seed}.py", "exec"), ns)
        torch.manual_seed(12345)
        model = ns["Model"](*ns["get_init_inputs"]())
        outs = _outputs(model(*ns["get_inputs"]()))
        if opts.values != "wild" and "# values: edge" not in src:
            for o in outs:
                if o.is_floating_point() and not bool(torch.isfinite(o).all()):
                    rec.update(status="nonfinite")
                    break
    except Exception as e:
        rec.update(status="error", error=f"{type(e).__name__}: {e}"[:400])
        return rec
    rec["run_s"] = time.perf_counter() - t1
    if compile_it:
        t2 = time.perf_counter()
        try:
            torch._dynamo.reset()
            compiled = torch.compile(model, backend="inductor")
            _outputs(compiled(*ns["get_inputs"]()))
            rec["compile"] = "ok"
        except Exception as e:
            rec["compile"] = "error"
            rec["compile_error"] = (
                f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
            )
        rec["compile_s"] = time.perf_counter() - t2
    return rec


JOB = "torchsmith.generate.validate:validate_job"


def validate_job(
    program: Any, options: Any, emit: Any, seed: int, gen_options: dict[str, Any], compile_it: bool
) -> dict[str, Any]:
    """Worker job: :func:`check_one` for one seed (``program`` is unused: the seed makes it)."""
    if os.environ.get("TORCHSMITH_VALIDATE_DIE_AT") == str(seed):  # tests: a real segfault
        os.kill(os.getpid(), signal.SIGSEGV)
    return check_one(seed, _options_from(gen_options), compile_it)


def validate_seeds(
    seeds: list[int],
    opts: GenOptions,
    compile_seeds: set[int] | None = None,
    timeout: int = 60,
    jobs: int = 1,
) -> list[dict[str, Any]]:
    """Run the seeds in a worker; a seed whose program kills or hangs it is recorded with status
    ``crash`` or ``timeout`` (and the sentence saying how) and the rest go on in a fresh one.
    ``jobs``: how many of these run side by side (each worker's share of the cores)."""
    from torchsmith.execute.protocol import Request, worker_env
    from torchsmith.execute.worker import Worker
    from torchsmith.options import CheckOptions

    compile_seeds = compile_seeds or set()
    options = CheckOptions(timeout=float(timeout), localize=False)
    gen_options = options_to_dict(opts)
    out: list[dict[str, Any]] = []
    with Worker(memory_mb=options.memory_mb, env=worker_env(jobs)) as worker:
        for seed in seeds:
            request = Request.call(
                JOB,
                None,
                options,
                seed=seed,
                gen_options=gen_options,
                compile_it=seed in compile_seeds,
            )
            outcome = worker.run(request, options.timeout, options.memory_mb)
            if outcome.status == "result" and outcome.result is not None:
                out.append(outcome.result)
                continue
            status = {"died": "crash", "timeout": "timeout"}.get(outcome.status, "tool_error")
            out.append({"seed": seed, "status": status, "error": outcome.failure(f"seed {seed}")})
    return out
