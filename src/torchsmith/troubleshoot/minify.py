"""``minify``: PyTorch's own minifiers, driven end to end and checked by torchsmith.

The guide's recipe, automated: run the program with ``TORCHDYNAMO_REPRO_AFTER`` (``dynamo``: the
graph Dynamo hands the backend; ``aot``: the graph AOTAutograd hands Inductor) and
``TORCHDYNAMO_REPRO_LEVEL`` (2: crashes; 4: accuracy, against a float64 reference) set, so that
torch writes ``minifier_launcher.py`` into its debug folder; run ``minifier_launcher.py minify``
(a subprocess in its own session, killed when ``time_budget`` runs out); take the ``repro.py``
it writes (after each round, so a run cut short leaves the best graph so far); turn it into a
canonical program (the ``Repro`` module becomes ``Model``, its ``load_args`` feeds
``get_inputs`` with random tensors of the recorded shapes) and judge that with ``check``: the
same verdict and stage as the original, or not.

Steps 1 and 3 run program code and torch: step 1 in a dedicated worker whose log lands in the
output folder, step 3 in a subprocess with the worker's environment. ``--after``/``accuracy``
default from the original verdict: an Inductor failure is minified after AOT, anything earlier
after Dynamo; wrong values use repro level 4. A Dynamo failure never reaches a backend, so no
launcher is written: the report says so (status ``gave up``) rather than pretend.

Folder layout (``out_dir``)::

    minify.json               the report below
    torch/run_*/minifier/     torch's debug folder: minifier_launcher.py, repro.py, checkpoints/
    minifier_launcher.py      copy of the launcher torch wrote
    repro.py                  copy of the minified repro torch wrote (PyTorch's format)
    program.py                that repro as a canonical torchsmith program
    minifier.log              the launcher's output
    worker.log                the worker's log (the run that wrote the launcher)
    <finding id>/             with a finding: the minified program as a finding folder

Report (schema 1): ``program, after, accuracy, repro_level, isolate, time_budget, original
{verdict, stage}, status (minified|partial|gave up|nothing to minify), reason, queries, nodes
{start, end}, statements, seconds {run, minify, check, total}, launcher, repro, program_path,
minified_source, check {verdict, stage, reason} | null, same_failure, finding, error``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from torchsmith.check import check_program
from torchsmith.execute.protocol import worker_env
from torchsmith.execute.worker import Worker
from torchsmith.finding import read_finding, write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import program_from_source
from torchsmith.reduce.source import forward_statements
from torchsmith.troubleshoot.common import (
    SCHEMA,
    TroubleshootError,
    exception_info,
    load_and_compile,
    load_error_result,
    run_job,
)
from torchsmith.verdict import CheckResult, Stage, Verdict

JOB = "torchsmith.troubleshoot.minify:minify_job"
REPORT = "minify.json"
TIME_BUDGET = 300.0
AFTERS = ("dynamo", "aot")
#: Verdicts about values: minified with the accuracy minifier (repro level 4).
ACCURACY_VERDICTS = {v for v in Verdict if v.is_accuracy}
_CLEANUP_RE = re.compile(r";\s*(?:\w+\s*=\s*)+None[ \t]*$", re.M)
_OWNED = ("torch", "minifier_launcher.py", "repro.py", "program.py", "minifier.log", "worker.log")

_WRAPPER = """\
import runpy, sys
import torch
torch.set_grad_enabled({grad})
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


# -- pure pieces (unit-tested) ----------------------------------------------------------------------
def choose(result: CheckResult, after: str | None, accuracy: bool | None) -> tuple[str, bool]:
    """``(after, accuracy)`` for a failure: explicit choices win; an Inductor failure is
    minified after AOT, anything else after Dynamo; wrong values use the accuracy minifier."""
    if after is None or after == "auto":
        after = "aot" if result.stage in (Stage.INDUCTOR, None, Stage.UNKNOWN) else "dynamo"
    if after not in AFTERS:
        raise ValueError(f"--after must be one of {', '.join(AFTERS)} or auto, not {after!r}")
    if accuracy is None:
        accuracy = result.verdict in ACCURACY_VERDICTS
    return after, accuracy


def parse_minifier_log(text: str) -> dict[str, Any]:
    """Queries made, nodes at the start and at the best point, whether it finished, and the
    last error line, from the minifier's output (``functorch.compile.minifier``'s prints)."""
    queries = [int(m) for m in re.findall(r"^Made (\d+) queries", text, re.M)]
    start = re.search(r"^Started off with (\d+) nodes", text, re.M)
    went = [int(m) for m in re.findall(r"SUCCESS: Went from \d+ to (\d+) nodes", text)]
    errors = [
        ln.strip()
        for ln in text.splitlines()
        if re.match(r"\s*(\w+Error|\w+Exception|RuntimeError):", ln)
    ]
    return {
        "queries": queries[-1] if queries else len(re.findall(r"^Strategy: ", text, re.M)),
        "start_nodes": int(start.group(1)) if start else None,
        "end_nodes": went[-1] if went else (int(start.group(1)) if start else None),
        "finished": "Wrote minimal repro out to repro.py" in text,
        "error": errors[-1][:300] if errors else None,
    }


def repro_to_program(text: str, name: str, after: str, config: dict[str, Any] | None) -> str:
    """PyTorch's ``repro.py`` (or a launcher) as a canonical program.

    Keeps the imports (not ``os``), the module classes (``Repro`` renamed ``Model``, FX's
    ``;  x = None`` frees dropped) and ``load_args``; adds ``get_inputs()`` reading random tensors of the recorded shapes through
    PyTorch's own ``InputReader``, and ``compile_config`` with the ``--config`` entries the
    failure needs. Raises ValueError when the text holds no ``Repro`` module.
    """
    tree = ast.parse(text)
    imports: list[str] = []
    defs: list[str] = []
    has_repro = has_load = False
    for node in tree.body:
        seg = ast.get_source_segment(text, node) or ast.unparse(node)
        if isinstance(node, ast.Import | ast.ImportFrom):
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if mod and (mod == "os" or mod.startswith("torch._dynamo.repro")):
                continue
            imports.append(seg)
        elif isinstance(node, ast.ClassDef):
            if node.name == "Repro":
                has_repro = True
                seg = re.sub(r"^class Repro\b", "class Model", seg)
            seg = _CLEANUP_RE.sub("", seg)  # `;  x = y = None`: FX's frees, not the graph
            defs.append(seg)
        elif isinstance(node, ast.FunctionDef) and node.name == "load_args":
            has_load = True
            defs.append(seg)
    if not has_repro or not has_load:
        raise ValueError("not a PyTorch minifier repro: no `class Repro` and `load_args`")
    head = (
        f"# {name}: PyTorch's minifier (TORCHDYNAMO_REPRO_AFTER={after}) reduced the failing\n"
        "# graph to this module; torchsmith minify made it a canonical program whose inputs\n"
        "# are random tensors of the recorded shapes and dtypes.\n"
    )
    defs.append(
        "def get_inputs():\n"
        "    from torch._dynamo.debug_utils import InputReader\n\n"
        "    reader = InputReader()  # no save_dir: random data of the recorded shapes\n"
        "    load_args(reader)\n"
        "    return list(reader.args)"
    )
    tail = ""
    if config:
        tail = f"\n\ncompile_config = {config!r}\n"
    return head + "\n".join(imports) + "\n\n\n" + "\n\n\n".join(defs) + "\n" + tail


# -- in the worker ----------------------------------------------------------------------------------
def minify_job(
    program: Program,
    options: CheckOptions,
    emit_phase: Any,
    debug_root: str,
    after: str,
    accuracy: bool,
) -> dict[str, Any]:
    """Run the program once with PyTorch's minifier armed; where did it write its launcher?"""
    import contextlib

    import torch

    from torchsmith.oracle import runtime

    error = None
    dtype = runtime.resolve_dtype(options.dtype)
    with contextlib.ExitStack() as stack:
        stack.enter_context(runtime.compiler_config(options))
        stack.enter_context(
            torch._dynamo.config.patch(
                repro_after=after,
                repro_level=4 if accuracy else 2,
                repro_forward_only=not options.grad,
                debug_dir_root=debug_root,
            )
        )
        # a cached graph skips the compiler the minifier wraps
        stack.enter_context(torch._inductor.config.patch(fx_graph_cache=False))
        stack.enter_context(torch._functorch.config.patch(enable_autograd_cache=False))
        try:
            loaded, _, args, compiled = load_and_compile(program, options, dtype, emit_phase)
        except runtime.ProgramLoadError as e:
            return load_error_result(e)
        cwd = os.getcwd()
        Path(debug_root).mkdir(parents=True, exist_ok=True)
        os.chdir(debug_root)  # torch's accuracy dump also writes ./repro.py: keep it in there
        try:
            with torch.set_grad_enabled(options.grad):
                compiled(*args, **loaded.calls[0].kwargs)
        except Exception as e:  # the failure being minified, usually
            error = exception_info(e)
        finally:
            os.chdir(cwd)
    launchers = sorted(Path(debug_root).rglob("minifier_launcher.py"), key=os.path.getmtime)
    return {
        "schema": SCHEMA,
        "error": error,
        "launcher": str(launchers[-1]) if launchers else None,
    }


# -- in the parent ----------------------------------------------------------------------------------
def _prepare(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise TroubleshootError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        if not (out / REPORT).exists() and not (out / "worker.log").exists():
            raise TroubleshootError(
                f"{out}: not empty and not a torchsmith minify folder; pick another -o"
            )
        for p in out.iterdir():
            if p.name in _OWNED or p.name == REPORT or (p / "meta.json").exists():
                shutil.rmtree(p) if p.is_dir() else p.unlink()
    out.mkdir(parents=True, exist_ok=True)


def run_launcher(
    launcher: Path, after: str, isolate: bool, grad: bool, budget: float, log: Path
) -> tuple[int | None, float]:
    """Run ``minifier_launcher.py minify`` in its folder, at most ``budget`` seconds; its exit
    status (None when it was killed at the budget) and the seconds it took."""
    cmd = [sys.executable, "-c", _WRAPPER.format(grad=bool(grad)), launcher.name, "minify"]
    if after == "aot" and not isolate:
        cmd.append("--no-isolate")
    env = worker_env()
    if not grad:
        env["TORCHDYNAMO_REPRO_FORWARD_ONLY"] = "1"
    t0 = time.monotonic()
    with open(log, "wb") as f:
        proc = subprocess.Popen(
            cmd,
            cwd=launcher.parent,
            env=env,
            stdout=f,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            code: int | None = proc.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            code = None
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
            proc.wait()
    return code, time.monotonic() - t0


def _gave_up(report: dict[str, Any], reason: str) -> dict[str, Any]:
    report.update(status="gave up", reason=reason)
    return report


def minify_program(
    program: Program,
    out_dir: str | Path,
    options: CheckOptions | None = None,
    *,
    after: str | None = None,
    accuracy: bool | None = None,
    isolate: bool = False,
    time_budget: float = TIME_BUDGET,
    original: CheckResult | None = None,
    finding_id: str | None = None,
    worker: Worker | None = None,
) -> dict[str, Any]:
    """Minify ``program``'s failure with PyTorch's minifier into ``out_dir``; the report.

    ``original`` is the program's check result (computed here when None); both checks run in
    ``worker`` (a fresh one each when None); the armed run always gets its own worker.
    ``isolate`` runs each minifier query in its own process (PyTorch's default for ``aot``;
    slow); ``time_budget`` bounds the launcher's run. With ``finding_id`` the minified program,
    when it still fails, is also written as a finding folder in ``out_dir``. Raises
    :class:`~torchsmith.troubleshoot.common.TroubleshootError` for an unusable ``out_dir``, a
    program that does not load, hangs or kills the worker, and ValueError for a bad ``after``.
    """
    options = options or CheckOptions()
    out = Path(out_dir)
    t_start = time.monotonic()
    if original is None:
        original = check_program(program, options, worker)
        if original.verdict is Verdict.INVALID:
            raise TroubleshootError(f"{program.name}: {original.reason}")
    after, accuracy = choose(original, after, accuracy)
    _prepare(out)
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "program": program.name,
        "dir": str(out),
        "after": after,
        "accuracy": accuracy,
        "repro_level": 4 if accuracy else 2,
        "isolate": isolate,
        "time_budget": time_budget,
        "original": {"verdict": original.verdict.value, "stage": _stage(original)},
        "status": None,
        "reason": "",
        "queries": None,
        "nodes": {"start": None, "end": None},
        "statements": None,
        "seconds": {},
        "launcher": None,
        "repro": None,
        "program_path": None,
        "minified_source": None,
        "check": None,
        "same_failure": None,
        "finding": None,
        "error": None,
    }
    try:
        if not original.is_bug:
            report.update(status="nothing to minify", reason=f"check says {original.reason}")
            return report
        _minify(program, out, options, report, isolate, time_budget, finding_id, original, worker)
        return report
    finally:
        report["seconds"]["total"] = round(time.monotonic() - t_start, 1)
        (out / REPORT).write_text(json.dumps(report, indent=2, default=str) + "\n")


def _stage(result: CheckResult) -> str | None:
    return result.stage.value if result.stage else None


def _minify(
    program: Program,
    out: Path,
    options: CheckOptions,
    report: dict[str, Any],
    isolate: bool,
    budget: float,
    finding_id: str | None,
    original: CheckResult,
    worker: Worker | None,
) -> None:
    after, accuracy = report["after"], report["accuracy"]
    t0 = time.monotonic()
    armed = Worker(memory_mb=options.memory_mb, log_dir=out)  # its log: out/worker.log
    try:
        job = run_job(
            JOB,
            program,
            options,
            armed,
            debug_root=str((out / "torch").resolve()),
            after=after,
            accuracy=accuracy,
        )
    finally:
        armed.close()
    report["seconds"]["run"] = round(time.monotonic() - t0, 1)
    report["error"] = job.get("error")
    if not job.get("launcher"):
        raised = job.get("error")
        why = (
            f"the compiled run raised {raised['type']} before any graph reached the code the"
            f" minifier wraps (after {after}): {raised['summary'][:160]}"
            if raised
            else f"the run did not fail under PyTorch's check at repro level {report['repro_level']}"
        )
        _gave_up(report, f"PyTorch's minifier wrote no minifier_launcher.py: {why}")
        return
    launcher = Path(job["launcher"])
    shutil.copy(launcher, out / "minifier_launcher.py")
    report["launcher"] = str(launcher)
    code, secs = run_launcher(launcher, after, isolate, options.grad, budget, out / "minifier.log")
    report["seconds"]["minify"] = round(secs, 1)
    log = parse_minifier_log((out / "minifier.log").read_text(errors="replace"))
    report["queries"] = log["queries"]
    report["nodes"] = {"start": log["start_nodes"], "end": log["end_nodes"]}
    repro = launcher.parent / "repro.py"
    if code is None:
        best = f" (best so far: {log['end_nodes']} nodes)" if log["end_nodes"] else ""
        reason = f"time budget of {budget:g} s ran out after {log['queries']} queries{best}"
        _gave_up(report, reason)
    elif code != 0 or not log["finished"]:
        _gave_up(report, f"the minifier exited {code}: {log['error'] or 'see minifier.log'}")
    else:
        report["status"] = "minified"
    if not repro.exists() or (report["status"] != "minified" and not log["end_nodes"]):
        return
    if report["status"] != "minified":
        report["status"] = "partial"
        report["reason"] = "gave up: " + report["reason"]
    shutil.copy(repro, out / "repro.py")
    report["repro"] = str(out / "repro.py")
    _check_repro(repro.read_text(), program, out, options, report, finding_id, original, worker)


def _check_repro(
    text: str,
    program: Program,
    out: Path,
    options: CheckOptions,
    report: dict[str, Any],
    finding_id: str | None,
    original: CheckResult,
    worker: Worker | None,
) -> None:
    try:
        source = repro_to_program(text, program.name, report["after"], options.config)
        minified = program_from_source(
            source, name=f"{program.name}_minified", path=str(out / "program.py"), scripts=False
        )
    except (ValueError, SyntaxError, ProgramFormatError) as e:
        report["reason"] += f"; its repro.py could not be read as a program: {e}"
        return
    (out / "program.py").write_text(source)
    report["program_path"] = str(out / "program.py")
    report["minified_source"] = source
    report["statements"] = forward_statements(source)
    t0 = time.monotonic()
    result = check_program(minified, options.replace(only=None), worker)
    report["seconds"]["check"] = round(time.monotonic() - t0, 1)
    report["check"] = {
        "verdict": result.verdict.value,
        "stage": _stage(result),
        "reason": result.reason,
    }
    report["same_failure"] = result.verdict is original.verdict and result.stage is original.stage
    if finding_id and result.is_bug:
        f = write_finding(
            out,
            minified,
            result,
            generator="torchsmith minify",
            extra={"minified_from": finding_id, "minifier": f"pytorch after {report['after']}"},
        )
        report["finding"] = str(f.folder)


def minify_finding(
    folder: str | Path,
    out_dir: str | Path | None = None,
    *,
    only: str | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """:func:`minify_program` on a finding folder: its program, recorded options (``only``
    applies on top) and recorded verdict; output in ``<folder>/pytorch-minifier/`` unless
    ``out_dir`` is given. Raises FileNotFoundError for a folder without ``meta.json``."""
    finding = read_finding(folder)
    options = finding.options.replace(only=only) if only else finding.options
    out = Path(out_dir) if out_dir else finding.folder / "pytorch-minifier"
    return minify_program(
        finding.program, out, options, original=finding.result, finding_id=finding.id, **kwargs
    )


def format_minify(report: dict[str, Any]) -> str:
    """The human view: what ran, the outcome, the minified program and ``check``'s verdict."""
    orig = report["original"]
    level = report["repro_level"]
    out = [
        f"{report['program']}: PyTorch minifier, TORCHDYNAMO_REPRO_AFTER={report['after']}"
        f" TORCHDYNAMO_REPRO_LEVEL={level} (original: {orig['verdict']}, stage {orig['stage']})"
    ]
    status = report["status"]
    line = f"status: {status}" + (f": {report['reason']}" if report["reason"] else "")
    out.append(line)
    nodes = report["nodes"]
    if report["queries"] is not None:
        out.append(
            f"queries {report['queries']}, graph nodes {nodes['start']} -> {nodes['end']},"
            f" seconds {report['seconds']}"
        )
    if report["minified_source"]:
        out += ["", f"--- minified program ({report['program_path']}) ---"]
        out.append(report["minified_source"].rstrip())
        out.append("---")
    chk = report["check"]
    if chk:
        same = (
            "the same failure"
            if report["same_failure"]
            else f"NOT the same failure (expected {orig['verdict']}/{orig['stage']})"
        )
        out.append(f"check on it: {chk['verdict']}, stage {chk['stage']}: {same}")
        out.append(f"  {chk['reason'][:300]}")
    if report.get("finding"):
        out.append(f"finding folder: {report['finding']}")
    out.append(f"report: {report['dir']}/{REPORT}")
    return "\n".join(out)
