"""``debug``: every compile artifact of one run of a program, in one folder, with an index.

``TORCH_COMPILE_DEBUG``, ``TORCH_COMPILE_DEBUG_DIR`` and ``TORCH_TRACE`` are read when torch is
imported, so each debug run gets a dedicated worker started with them set, and with Inductor's
FX-graph and AOTAutograd caches off (``TORCHINDUCTOR_FX_GRAPH_CACHE=0``,
``TORCHINDUCTOR_AUTOGRAD_CACHE=0``): a graph served from those caches is not lowered again and
leaves no artifacts. The compiled-kernel cache stays on, so C++ is not rebuilt needlessly. Layout of the folder (:data:`ROLES` says what is what)::

    index.json                 what is where, compile times, graph/break counts, error
    dynamo_graphs/graph_N.py   Dynamo's FX graph N (torch-level ops), break reason on top
    inductor/<graph>/          per compiled graph: fx_graph_readable.py, fx_graph_transformed.py,
                               fx_graph_runnable.py, ir_pre_fusion.txt, ir_post_fusion.txt,
                               output_code.py (the generated code)
    trace/*.log                the TORCH_TRACE log
    tlparse/index.html         tlparse's report, when ``tlparse`` is installed
    worker.log                 the worker's stderr: program prints, torch logs and warnings

For findings, :func:`attach_troubleshooting` writes such a folder as ``debug/`` into the finding
folder of its (reduced) program, plus ``explain.json`` (graph and break counts, break reasons,
links to the generated code and FX graphs). Report writers link both when present.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torchsmith.execute.protocol import Request, worker_env
from torchsmith.execute.worker import Worker
from torchsmith.finding import read_finding
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.troubleshoot.common import (
    SCHEMA,
    TroubleshootError,
    load_error_result,
    table,
)
from torchsmith.troubleshoot.explain import format_breaks, format_times

JOB = "torchsmith.troubleshoot.debug:debug_job"
INDEX = "index.json"
#: What :func:`attach_troubleshooting` adds to a finding folder.
DEBUG_DIR = "debug"
EXPLAIN = "explain.json"
TLPARSE_TIMEOUT = 180.0

#: (pattern on the path relative to the folder, what the file is), first match wins.
ROLES: tuple[tuple[str, str], ...] = (
    (r"(^|/)output_code\.py$", "generated code (Inductor's output module)"),
    (r"(^|/)fx_graph_readable\.py$", "FX graph Inductor received (ATen ops, after AOTAutograd)"),
    (r"(^|/)fx_graph_transformed\.py$", "FX graph after Inductor's post-grad passes"),
    (r"(^|/)fx_graph_runnable\.py$", "that FX graph as a standalone runnable script"),
    (r"(^|/)ir_pre_fusion\.txt$", "Inductor IR before fusion"),
    (r"(^|/)ir_post_fusion\.txt$", "Inductor IR after fusion"),
    (r"provenance_tracking.*\.json$", "provenance: FX nodes to generated kernels"),
    (r"^dynamo_graphs/graph_\d+\.py$", "Dynamo FX graph (torch-level ops, before AOTAutograd)"),
    (r"^trace/.*\.log$", "TORCH_TRACE structured log (tlparse input)"),
    (r"^tlparse/index\.html$", "tlparse report (open in a browser)"),
    (r"^worker\.log$", "worker stderr: program prints, torch logs and warnings"),
    (rf"^{re.escape(INDEX)}$", "this index"),
    (r"\.log$", "debug log"),
)

#: What ``debug`` owns inside its folder; cleared before a new run into the same folder.
_OWNED = ("dynamo_graphs", "inductor", "trace", "tlparse", "compile_debug", "worker.log", INDEX)

WorkerFactory = Callable[..., Worker]


def describe(rel: str) -> str | None:
    """What the file at ``rel`` (relative to the debug folder) is, or None for other files."""
    for pattern, role in ROLES:
        if re.search(pattern, rel):
            return role
    return None


# -- in the worker --------------------------------------------------------------------------------
def debug_job(
    program: Program, options: CheckOptions, emit_phase: Any, out_dir: str
) -> dict[str, Any]:
    """Compile and run once with the debug switches on; write Dynamo's graphs into ``out_dir``."""
    import torch

    from torchsmith.oracle.runtime import ProgramLoadError
    from torchsmith.troubleshoot.explain import explain_run

    if os.environ.get("TORCH_COMPILE_DEBUG") != "1":
        raise RuntimeError(
            "debug jobs need a worker started by debug_program (TORCH_COMPILE_DEBUG)"
        )
    try:
        with torch._inductor.config.patch(fx_graph_cache=False):
            report, graphs = explain_run(program, options, emit_phase)
    except ProgramLoadError as e:
        return load_error_result(e)
    folder = Path(out_dir) / "dynamo_graphs"
    folder.mkdir(parents=True, exist_ok=True)
    breaks = {b["graph"]: b for b in report["breaks"] if b.get("graph") is not None}
    for i, gm in enumerate(graphs):
        head = f"# Dynamo graph {i} of {program.name} (backend {options.backend})\n"
        if i in breaks:
            b = breaks[i]
            head += f"# ends at a graph break, {b['file']}:{b['line']}: {b['gb_type']}\n"
        try:
            body = gm.print_readable(print_output=False)
        except Exception as e:  # a graph that cannot print must not lose the others
            body = f"# print_readable failed: {e!r}\n{gm.code}"
        (folder / f"graph_{i}.py").write_text(head + "\n" + body)
    return report


# -- in the parent --------------------------------------------------------------------------------
def _prepare(out_dir: Path) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise TroubleshootError(f"{out_dir}: exists and is not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not (out_dir / INDEX).exists() and not (out_dir / "worker.log").exists():
            raise TroubleshootError(
                f"{out_dir}: not empty and not a torchsmith debug folder; pick another -o"
            )
        for name in (*_OWNED, "torch_compile_debug"):
            p = out_dir / name
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)


def _debug_env(out_dir: Path) -> dict[str, str]:
    env = worker_env()
    env.update(
        {
            "TORCH_COMPILE_DEBUG": "1",
            "TORCH_COMPILE_DEBUG_DIR": str(out_dir.resolve()),
            "TORCH_TRACE": str((out_dir / "trace").resolve()),
            "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
            "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
        }
    )
    return env


_RENAME = {
    "torchinductor": "inductor",
    "torchdynamo": "compile_debug",
    "aot_torchinductor": "inductor",
}


def _organize(out_dir: Path) -> None:
    """Lift ``torch_compile_debug/run_<time>-pid_<pid>/*`` up to short paths; drop empty files."""
    root = out_dir / "torch_compile_debug"
    for run in sorted(root.glob("run_*")) if root.is_dir() else []:
        for child in sorted(run.iterdir()):
            dest = out_dir / _RENAME.get(child.name, "compile_debug")
            if child.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
                for item in child.iterdir():
                    shutil.move(str(item), str(dest / item.name))
            else:
                dest.mkdir(parents=True, exist_ok=True)
                shutil.move(str(child), str(dest / child.name))
    shutil.rmtree(root, ignore_errors=True)
    for path in sorted(out_dir.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_file() and path.stat().st_size == 0 and path.name != "worker.log":
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def find_tlparse() -> str | None:
    """The ``tlparse`` executable on PATH or next to this Python, or None."""
    exe = shutil.which("tlparse")
    if exe:
        return exe
    local = Path(sys.executable).parent / "tlparse"
    return str(local) if local.exists() else None


def run_tlparse(out_dir: Path) -> dict[str, Any]:
    """Run tlparse over the newest TORCH_TRACE log into ``tlparse/``; says what happened."""
    logs = sorted((out_dir / "trace").glob("*.log"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return {"ran": False, "reason": "no TORCH_TRACE log was written"}
    exe = find_tlparse()
    if exe is None:
        return {
            "ran": False,
            "reason": "tlparse is not installed (pip install 'torchsmith[trace]')",
        }
    cmd = [exe, str(logs[-1]), "-o", str(out_dir / "tlparse"), "--overwrite", "--no-browser"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=TLPARSE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"ran": False, "reason": f"tlparse failed: {e}"}
    if done.returncode != 0:
        return {"ran": False, "reason": f"tlparse exited {done.returncode}: {done.stderr[-300:]}"}
    return {"ran": True, "path": "tlparse/index.html"}


def list_files(out_dir: Path) -> list[dict[str, Any]]:
    """Every file in the folder with its role; tlparse's many files count as one entry."""
    files: list[dict[str, Any]] = []
    tl_count = 0
    for path in sorted(p for p in out_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(out_dir).as_posix()
        if rel.startswith("tlparse/") and rel != "tlparse/index.html":
            tl_count += 1
            continue
        files.append({"path": rel, "role": describe(rel) or "other", "bytes": path.stat().st_size})
    for f in files:
        if f["path"] == "tlparse/index.html":
            f["role"] += f" (+{tl_count} more files under tlparse/)"
    return files


def debug_program(
    program: Program,
    out_dir: str | Path,
    options: CheckOptions | None = None,
    worker_factory: WorkerFactory | None = None,
) -> dict[str, Any]:
    """Capture the compile artifacts of one run of ``program`` into ``out_dir``; the index.

    The index (also written to ``out_dir/index.json``) has ``files`` ([{path, role, bytes}]),
    ``explain`` (the :mod:`~torchsmith.troubleshoot.explain` report, or None when the run brought
    no result back), ``compile_times``, ``tlparse`` and ``error`` (None, or why the run failed:
    a compiled-run exception, a timeout, a worker death). ``worker_factory(env=..., log_dir=...)``
    makes the dedicated worker (default: :class:`~torchsmith.execute.worker.Worker`). Raises
    :class:`~torchsmith.troubleshoot.common.TroubleshootError` for a program that does not load
    or an unusable ``out_dir``.
    """
    options = options or CheckOptions()
    out = Path(out_dir)
    _prepare(out)
    env = _debug_env(out)
    factory = worker_factory or (lambda **kw: Worker(memory_mb=options.memory_mb, **kw))
    worker = factory(env=env, log_dir=out)
    try:
        outcome = worker.run(
            Request.call(JOB, program, options, out_dir=str(out.resolve())),
            options.timeout,
            options.memory_mb,
        )
    finally:
        worker.close()
    result = outcome.result if outcome.status == "result" else None
    if result and result.get("load_error"):
        raise TroubleshootError(f"{program.name}: {result['load_error']}")
    _organize(out)
    error = outcome.failure(program.name)
    if result and result.get("error"):
        err = result["error"]
        error = f"the compiled run raised {err['type']}: {err['summary']}"
    index: dict[str, Any] = {
        "schema": SCHEMA,
        "program": program.name,
        "dir": str(out),
        "options": options.to_dict(),
        "explain": result,
        "compile_times": (result or {}).get("compile_times"),
        "tlparse": run_tlparse(out),
        "error": error,
        "status": "crash" if result and result.get("error") else ("failed" if error else "ok"),
    }
    index["files"] = list_files(out) + [{"path": INDEX, "role": "this index", "bytes": None}]
    (out / INDEX).write_text(json.dumps(index, indent=2, default=str) + "\n")
    return index


def format_debug(index: dict[str, Any]) -> str:
    """The human view: what is where, then the graphs, breaks and compile times."""
    out = [f"{index['program']}: compile artifacts in {index['dir']}/", ""]
    rows = [(f["path"], f["role"]) for f in index["files"]]
    out.append(table(rows, ("file", "what")))
    if not any("output_code.py" in f["path"] for f in index["files"]):
        backend = index.get("options", {}).get("backend")
        why = "" if backend == "inductor" else f" (backend {backend} generates no code)"
        out += ["", f"no generated code{why}"]
    if not index["tlparse"]["ran"]:
        out += ["", f"tlparse: {index['tlparse']['reason']}"]
    ex = index.get("explain")
    if ex:
        out += ["", f"{ex['graph_count']} graph(s), {ex['graph_break_count']} graph break(s)"]
        out += format_breaks(ex["breaks"], detail=False)
        out += ["", format_times(ex["compile_times"])]
    if index.get("error"):
        out += ["", f"error: {index['error']}"]
    return "\n".join(out)


# -- findings -------------------------------------------------------------------------------------
_BREAK_KEYS = ("index", "file", "line", "function", "code", "gb_type", "gb_id", "url", "graph")


def explain_summary(index: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The ``explain.json`` content for a debug index written under ``folder``."""
    ex = index.get("explain") or {}
    debug_dir = Path(index["dir"])
    rel = debug_dir.name if debug_dir.parent.resolve() == folder.resolve() else str(debug_dir)
    return {
        "schema": SCHEMA,
        "program": index["program"],
        "graph_count": ex.get("graph_count"),
        "graph_break_count": ex.get("graph_break_count"),
        "op_count": ex.get("op_count"),
        "breaks": [{k: b.get(k) for k in _BREAK_KEYS} for b in ex.get("breaks", [])],
        "ops_per_graph": [g["ops"] for g in ex.get("graphs", [])],
        "compile_times": (ex.get("compile_times") or {}).get("stages"),
        "error": index.get("error"),
        "debug_index": f"{rel}/index.json",
        "generated_code": [
            f"{rel}/{f['path']}" for f in index["files"] if f["path"].endswith("output_code.py")
        ],
        "fx_graphs": [
            f"{rel}/{f['path']}"
            for f in index["files"]
            if f["path"].startswith("dynamo_graphs/") or "fx_graph_" in f["path"]
        ],
    }


def attach_troubleshooting(
    finding_folder: str | Path,
    worker_factory: WorkerFactory | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Write ``debug/`` and ``explain.json`` into a finding folder; returns the explain.json dict.

    A compile that crashes again, hangs or kills the worker still leaves what was captured up to
    that point, and ``error`` says what happened. Raises FileNotFoundError for a folder without
    ``meta.json`` and :class:`~torchsmith.troubleshoot.common.TroubleshootError` when the
    program no longer loads.
    """
    finding = read_finding(finding_folder)
    options = finding.options
    if timeout is not None:
        options = options.replace(timeout=timeout)
    folder = finding.folder
    index = debug_program(finding.program, folder / DEBUG_DIR, options, worker_factory)
    summary = explain_summary(index, folder)
    tmp = folder / (EXPLAIN + ".tmp")
    tmp.write_text(json.dumps(summary, indent=2, default=str) + "\n")
    tmp.replace(folder / EXPLAIN)
    return summary
