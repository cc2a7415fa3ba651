"""Run generated programs in eager (and optionally under torch.compile), crash-safely.

``python -m torchsmith.generate.validate`` reads a JSON job on stdin::

    {"seeds": [0, 1, ...], "options": {...GenOptions fields...}, "compile": [seeds to compile],
     "timeout": 60}

and writes one JSON line per program to stdout as soon as it is done, so a parent that sees the
process die (a segfault in generated code) knows exactly which seed killed it and restarts after
it. :func:`validate_seeds` is that parent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from torchsmith.generate.options import GenOptions


def _options_from(d: dict[str, Any]) -> GenOptions:
    d = dict(d)
    if "dtypes" in d:
        d["dtypes"] = tuple(d["dtypes"])
    return GenOptions(**d)


def options_to_dict(opts: GenOptions) -> dict[str, Any]:
    d = dataclasses.asdict(opts)
    d["dtypes"] = list(opts.dtypes)
    return d


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _alarm(seconds: int) -> Iterator[None]:
    def handler(signum, frame):
        raise _Timeout(f"timed out after {seconds}s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _outputs(out: Any) -> tuple:
    return out if isinstance(out, tuple) else (out,)


def check_one(seed: int, opts: GenOptions, compile_it: bool, timeout: int) -> dict[str, Any]:
    """Generate, run in eager (fresh parameters, as the checker builds them) and maybe compile."""
    import torch

    from torchsmith.generate import generate_source, program_ops

    rec: dict[str, Any] = {"seed": seed, "status": "ok"}
    t0 = time.perf_counter()
    try:
        with _alarm(timeout):
            src = generate_source(seed, opts)
    except Exception as e:
        rec.update(status="gen_error", error=f"{type(e).__name__}: {e}"[:400])
        return rec
    rec["gen_s"] = time.perf_counter() - t0
    rec["ops"] = sorted(program_ops(src))
    rec["lines"] = src.count("\n        ") - 1
    t1 = time.perf_counter()
    try:
        with _alarm(timeout):
            ns: dict[str, Any] = {}
            exec(compile(src, f"gen_{seed}.py", "exec"), ns)
            torch.manual_seed(12345)
            model = ns["Model"](*ns["get_init_inputs"]())
            outs = _outputs(model(*ns["get_inputs"]()))
            if not opts.edge_values:
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
            with _alarm(timeout):
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


def main() -> None:
    job = json.loads(sys.stdin.read())
    import torch

    torch.set_num_threads(int(job.get("threads", 1)))
    opts = _options_from(job.get("options", {}))
    to_compile = set(job.get("compile", []))
    die_at = os.environ.get("TORCHSMITH_VALIDATE_DIE_AT")  # tests: simulate a segfault there
    for seed in job["seeds"]:
        if die_at is not None and str(seed) == die_at:
            os.kill(os.getpid(), signal.SIGSEGV)
        rec = check_one(seed, opts, seed in to_compile, int(job.get("timeout", 60)))
        sys.stdout.write(json.dumps(rec) + "\n")
        sys.stdout.flush()


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(
        [src] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    return env


def validate_seeds(
    seeds: list[int],
    opts: GenOptions,
    compile_seeds: set[int] | None = None,
    timeout: int = 60,
) -> list[dict[str, Any]]:
    """Run the seeds in child processes; a child that dies is recorded against the seed it was
    on (status ``crash``) and a new child goes on with the rest."""
    results: dict[int, dict[str, Any]] = {}
    todo = list(seeds)
    compile_seeds = compile_seeds or set()
    while todo:
        job = {
            "seeds": todo,
            "options": options_to_dict(opts),
            "compile": sorted(compile_seeds & set(todo)),
            "timeout": timeout,
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "torchsmith.generate.validate"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=_child_env(),
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(job))
        proc.stdin.close()
        for line in proc.stdout:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            results[rec["seed"]] = rec
        rc = proc.wait()
        todo = [s for s in todo if s not in results]
        if todo:
            dead = todo.pop(0)
            results[dead] = {
                "seed": dead,
                "status": "crash",
                "error": f"worker died (exit code {rc})",
            }
    return [results[s] for s in seeds]


if __name__ == "__main__":
    main()
