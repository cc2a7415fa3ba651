"""Reductions of real injected faults: what they reduce to, and what they refuse to become."""

import subprocess
import sys

from torchsmith.check import check_program
from torchsmith.finding import read_finding, write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.load import load_program
from torchsmith.program.render import render_script
from torchsmith.reduce import reduce_finding, reduce_program
from torchsmith.reduce.passes import shrink
from torchsmith.reduce.source import view
from torchsmith.verdict import Stage, Verdict

from .conftest import BUILD_SET, DATA, RELU_BUG


def run_alone(script: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "repro.py"
    path.write_text(script)
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )


def forward_source(source: str) -> str:
    import ast

    fwd = view(source).forward
    return "\n".join(ast.unparse(s) for s in fwd.body)


def test_relu_accuracy_bug_buried_in_12_ops_reduces_to_two_statements(worker, tmp_path):
    options = CheckOptions(config={RELU_BUG: "accuracy"})
    res = reduce_program(
        load_program(DATA / "relu12.py"),
        options,
        worker=worker,
        time_budget=150,
        verify_script=False,
    )
    assert res.reproduced and res.confirmed, res.error
    assert res.forward_before == 13 and res.forward_after <= 2
    assert "relu" in forward_source(res.reduced.source)
    r = res.result
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
    assert r.evidence["fp64"] == "ok" and "compiled_vs_fp64" in r.evidence["figures"]
    assert r.ladder["aot_eager_decomp_partition"] == "pass"
    # The written repro, alone in a fresh interpreter, still shows the failure.
    proc = run_alone(render_script(res.reduced, options), tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        "VERDICT: mismatch" in proc.stdout
        and "same(eager, compiled, fp64_ref): False" in proc.stdout
    )


def test_dynamo_crash_finding_keeps_its_exception_and_stage(worker, tmp_path):
    options = CheckOptions(fullgraph=True, config={BUILD_SET: True})
    program = load_program(DATA / "build_set12.py")
    result = check_program(program, options, worker)
    assert result.verdict is Verdict.CRASH and result.stage is Stage.DYNAMO
    original = write_finding(tmp_path / "findings", program, result, signature="sig-original")
    reduced = reduce_finding(original, worker, time_budget=90)
    assert reduced is not None and reduced.folder.parent == original.folder.parent
    assert reduced.meta["reduced_from"] == original.id
    assert read_finding(original.folder).meta["reduced_to"] == reduced.id
    r = reduced.result
    assert r.verdict is Verdict.CRASH and r.stage is Stage.DYNAMO
    assert r.evidence["exc_type"] == result.evidence["exc_type"]
    assert "BUILD_SET" in r.evidence["message"].splitlines()[0]
    red = reduced.meta["reduction"]
    assert red["forward_statements"] == [10, 1] and red["script_reproduces"] is True
    proc = run_alone((reduced.folder / "repro.py").read_text(), tmp_path)
    assert proc.returncode == 1 and "VERDICT: crash" in proc.stdout
    assert "BUILD_SET" in proc.stderr


def test_inductor_compile_error_keeps_cpp_compile_error(worker):
    options = CheckOptions(config={RELU_BUG: "compile_error"})
    res = reduce_program(
        load_program(DATA / "relu12.py"),
        options,
        worker=worker,
        time_budget=150,
        generic=False,
        verify_script=False,
    )
    assert res.confirmed, res.error
    r = res.result
    assert r.verdict is Verdict.CRASH and r.stage is Stage.INDUCTOR
    assert r.evidence["message"].startswith("CppCompileError")
    assert res.forward_after <= 2 and "relu" in forward_source(res.reduced.source)


def test_cuts_that_change_the_failure_are_rejected(worker):
    """Shrinking the Linear alone makes the program invalid; dropping a dimension of x turns the
    accuracy bug into a crash at Dynamo (fullgraph graph break). Both are smaller; neither may
    be taken."""
    options = CheckOptions(fullgraph=True, config={RELU_BUG: "accuracy"})
    passes = [("layers", shrink.shrink_layers), ("shapes", shrink.shrink_shapes)]
    res = reduce_program(
        load_program(DATA / "tempting_cut.py"),
        options,
        worker=worker,
        time_budget=120,
        passes=passes,
        generic=False,
        verify_script=False,
    )
    rejected = {a.verdict for a in res.attempts if not a.interesting}
    assert {"invalid", "crash"} <= rejected
    crash = next(a for a in res.attempts if a.verdict == "crash")
    assert "graph_break" in crash.reason and "drop dim" in crash.label
    assert res.confirmed and res.progress
    r = res.result
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
    assert "torch.randn(1, 1)" in res.reduced.source  # smallest, but still 2-d


def test_cli_reduce_writes_a_standalone_repro_that_fails_alone(tmp_path):
    out = tmp_path / "repro.py"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torchsmith",
            "reduce",
            str(DATA / "build_set12.py"),
            "--fullgraph",
            "--config",
            f"{BUILD_SET}=True",
            "-o",
            str(out),
            "--no-verify",
            "--time-budget",
            "60",
            "-j",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "crash at dynamo" in proc.stderr and "forward 10 -> 1 statements" in proc.stderr
    assert "(2 workers)" in proc.stderr
    assert "class Model" in proc.stdout  # the reduced program itself
    alone = run_alone(out.read_text(), tmp_path)
    assert alone.returncode == 1 and "VERDICT: crash" in alone.stdout
