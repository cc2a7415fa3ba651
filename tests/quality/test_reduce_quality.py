"""Reductions of real injected faults: what they reduce to, and what they refuse to become."""

import subprocess
import sys
from pathlib import Path

from torchsmith.check import check_program
from torchsmith.finding import read_finding, write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.format import declared_settings
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


# -- function programs (issue #26): each reaches <= 3 statements and reproduces standalone ------


def _fn_statements(source: str) -> int:
    fn = view(source, "fn").forward
    assert fn is not None, source
    return len(fn.body)


def test_python_int_through_cos_under_dynamic_keeps_its_dynamo_crash(worker):
    """Genuine on torch 2.13: ``x * math.cos(s) ** 2`` with a Python int ``s`` and
    ``dynamic=True`` crashes Dynamo (fake-tensor propagation of a symbolic pow)."""
    res = reduce_program(
        load_program(DATA / "fn_cos_int_dynamic.py"), CheckOptions(), worker=worker, time_budget=90
    )
    assert res.confirmed and res.script_reproduces is True, res.error
    r = res.result
    assert r.verdict is Verdict.CRASH and r.stage is Stage.DYNAMO
    assert r.evidence["exc_type"].endswith("TorchRuntimeError")
    assert _fn_statements(res.reduced.source) <= 3 and "math.cos(s)" in res.reduced.source
    kwargs, config, _ = declared_settings(res.reduced.source)
    assert kwargs == {"dynamic": True} and config == {}  # dynamic matters, nothing else does
    assert "helper" not in res.reduced.source and "SCALE" not in res.reduced.source


def test_global_changed_between_calls_reduces_to_one_call(worker):
    """Planted fault (relu accuracy): three calls with a global set by ``before_call``."""
    options = CheckOptions(config={RELU_BUG: "accuracy"})
    res = reduce_program(
        load_program(DATA / "fn_global_between_calls.py"), options, worker=worker, time_budget=90
    )
    assert res.confirmed and res.script_reproduces is True, res.error
    r = res.result
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
    assert _fn_statements(res.reduced.source) <= 3 and "relu" in res.reduced.source
    assert "get_calls" not in res.reduced.source or "call1" not in res.reduced.source
    assert "helper" not in res.reduced.source and "float64" not in res.reduced.source


def test_opt_in_setting_is_dropped_and_the_needed_one_kept(worker):
    """Planted fault (relu compile error) declared in ``compile_config`` beside settings the
    failure does not need (an opt-in pass, a fusion switch)."""
    res = reduce_program(
        load_program(DATA / "fn_opt_in_pass.py"), CheckOptions(), worker=worker, time_budget=90
    )
    assert res.confirmed and res.script_reproduces is True, res.error
    r = res.result
    assert r.verdict is Verdict.CRASH and r.stage is Stage.INDUCTOR
    kwargs, config, _ = declared_settings(res.reduced.source)
    assert config == {RELU_BUG: "compile_error"} and kwargs == {}
    assert _fn_statements(res.reduced.source) <= 3 and "relu" in res.reduced.source


def test_pasted_script_aliased_inputs_in_place_write_aotautograd_crash(worker):
    """Genuine on torch 2.13, from a function script pasted as is (``bench/issues``): an input
    written in place while a view of it is also an input, under ``aot_eager``; the oracle's
    inputs (views of one copied storage) make AOTAutograd's view replay fail."""
    script = Path(__file__).resolve().parents[2] / "bench" / "issues"
    program = load_program(script / "i198095_synthetic_base_view_output.py", scripts=False)
    assert program.origin == "foreign" and program.model == "fn"
    res = reduce_program(program, CheckOptions(), worker=worker, time_budget=90)
    assert res.confirmed and res.script_reproduces is True, res.error
    r = res.result
    assert r.verdict is Verdict.CRASH and r.stage is Stage.AOTAUTOGRAD
    assert _fn_statements(res.reduced.source) <= 3 and "add_" in res.reduced.source
    kwargs, _, _ = declared_settings(res.reduced.source)
    assert kwargs in ({}, {"backend": "aot_eager"})  # the crash is AOTAutograd's, any backend
