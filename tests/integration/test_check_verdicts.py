"""check on real programs with real compiler faults: verdicts, stages and evidence."""

import pytest

from torchsmith import CheckOptions, Stage, Verdict, check_program, load_program
from torchsmith.program.load import program_from_source

from .conftest import DATA, EXAMPLES

RELU = EXAMPLES / "linear_relu.py"
RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"


def run(worker, path, **opts):
    return check_program(load_program(path), CheckOptions(**opts), worker)


def test_clean_program_passes(worker):
    r = run(worker, RELU)
    assert r.verdict is Verdict.PASS and not r.is_bug and r.stage is None
    assert r.evidence["graphs"] >= 1 and r.timings["compiled"] > 0


@pytest.mark.parametrize("fault", ["compile_error", "runtime_error"])
def test_injected_inductor_crash_localizes_to_inductor(worker, fault):
    r = run(worker, RELU, config={RELU_BUG: fault})
    assert r.verdict is Verdict.CRASH and r.is_bug and r.stage is Stage.INDUCTOR
    assert r.ladder == {
        "eager": "pass",
        "aot_eager": "pass",
        "aot_eager_decomp_partition": "pass",
        "inductor": "crash",
        "inductor-no-cache": "crash",  # the cache probe: a fresh compile fails too
    }
    ev = r.evidence
    assert ev["traceback_tail"] and ev["torch_frame"]
    if fault == "compile_error":
        assert "CppCompileError" in ev["message"]
    else:
        assert ev["exc_type"] == "RuntimeError"


def test_injected_inductor_accuracy_bug_is_mismatch_at_inductor(worker):
    r = run(worker, RELU, config={RELU_BUG: "accuracy"})
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
    figs = r.evidence["figures"]
    assert figs["compiled_vs_fp64"]["max_abs"] > 100 * figs["eager_vs_fp64"]["max_abs"]
    assert r.ladder["aot_eager_decomp_partition"] == "pass"


def test_dynamo_fault_is_a_crash_at_dynamo_with_fullgraph(worker):
    r = run(
        worker,
        DATA / "programs" / "build_set.py",
        fullgraph=True,
        config={"dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY": True},
    )
    assert r.verdict is Verdict.CRASH and r.stage is Stage.DYNAMO
    assert "Unsupported" in r.evidence["exc_type"] and r.ladder["eager"] == "crash"


def test_dynamo_fault_without_fullgraph_passes_and_says_nothing_was_compiled(worker):
    r = run(
        worker,
        DATA / "programs" / "build_set.py",
        config={"dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY": True},
    )
    assert r.verdict is Verdict.PASS
    assert r.evidence["graphs"] == 0 and "BUILD_SET" in r.reason


def test_s2_is_invalid_and_names_mm_and_both_shapes(worker):
    r = run(worker, EXAMPLES / "s2_mm_invalid.py")
    assert r.verdict is Verdict.INVALID and not r.is_bug and r.exit_code == 2
    assert r.evidence["op"] == "torch.mm"
    assert "`torch.mm` got `[2, 10]` and `[2, 10]`" in r.reason
    assert "row-column" in r.reason
    assert "torch.mm(x1, inp)" in r.evidence["user_line"]


def test_s2_with_x1_fixed_to_2x2_passes(worker):
    src = (
        (EXAMPLES / "s2_mm_invalid.py")
        .read_text()
        .replace("x1 = torch.randn(2, 10)", "x1 = torch.randn(2, 2)")
    )
    r = check_program(program_from_source(src, name="s2_fixed"), CheckOptions(), worker)
    assert r.verdict is Verdict.PASS


NONDET = """
import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return x + torch.rand(x.shape, generator=torch.Generator().manual_seed(__import__('time').time_ns() % 1000003))
def get_inputs():
    return [torch.zeros(8)]
"""


def test_nondeterministic_program_is_ruled_out(worker):
    r = check_program(program_from_source(NONDET, name="nondet"), CheckOptions(), worker)
    assert r.verdict is Verdict.NONDETERMINISTIC and not r.is_bug


DROPOUT_TRAIN = """
import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.dropout(x, p=0.5, training=True) * 2
def get_inputs():
    return [torch.ones(64)]
"""


def test_random_ops_compare_equal_thanks_to_fallback_random_and_reseeding(worker):
    r = check_program(program_from_source(DROPOUT_TRAIN, name="dropout"), CheckOptions(), worker)
    assert r.verdict is Verdict.PASS


def test_grad_compares_gradients_against_fp64(worker):
    r = run(worker, RELU, grad=True, config={RELU_BUG: "accuracy"})
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
    assert run(worker, RELU, grad=True).verdict is Verdict.PASS


def test_dtype_option_casts_model_and_inputs(worker):
    for dtype in ("float16", "bfloat16", "float64"):
        r = run(worker, RELU, dtype=dtype)
        assert r.verdict is Verdict.PASS, (dtype, r.reason)


def test_user_backend_rung_and_bisect_names_the_relu_lowering(worker):
    r = run(worker, RELU, config={RELU_BUG: "accuracy"}, bisect=True)
    assert r.bisect and r.bisect["found"]
    assert r.bisect["backend"] == "inductor"
    assert r.bisect["subsystem"] == "lowerings" and "relu" in (r.bisect["debug_info"] or "")


def test_foreign_issue_script_is_imported_and_checked(worker):
    script = DATA / "issue_scripts" / "relu_cuda_issue.py"
    program = load_program(script)
    assert program.origin == "script"  # run whole, its own torch.compile call intercepted
    assert check_program(program, CheckOptions(), worker).verdict is Verdict.PASS
    r = check_program(program, CheckOptions(config={RELU_BUG: "accuracy"}), worker)
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR


# -- random programs under Inductor's own generator (oracle/native_random.py) -------------------
DEFAULT_DTYPE_RANDN = """
import torch
torch.set_default_dtype(torch.float64)
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.randn(4, 4) @ x
def get_inputs():
    return [torch.ones(4, 4)]
"""

DROPOUT = """
import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.dropout(x.sin(), 0.5, training=True) + torch.rand_like(x)
def get_inputs():
    return [torch.randn(64, 33)]
"""


@pytest.mark.slow
def test_replace_random_bug_shows_under_inductors_own_generator():
    """``replace_random`` ignores the default dtype (a find of this project's): hidden with
    ``fallback_random=True``, the second run (``False``) shows it, and the finding keeps the
    setting so its repro reproduces. A worker of its own: the program sets the default dtype."""
    from torchsmith.execute.worker import Worker

    worker = Worker()
    try:
        program = program_from_source(DEFAULT_DTYPE_RANDN, name="randn_default_dtype")
        r = check_program(program, CheckOptions(), worker)
        assert r.verdict is Verdict.CRASH and r.is_bug and r.stage is Stage.INDUCTOR
        assert r.options["config"] == {"inductor.fallback_random": False}
        assert r.ladder["aot_eager_decomp_partition"] == "pass"
        mine = CheckOptions(config={"inductor.fallback_random": True})
        assert check_program(program, mine, worker).verdict is Verdict.PASS
    finally:
        worker.close()


@pytest.mark.slow
def test_random_values_from_another_generator_are_no_mismatch(worker):
    """Dropout and ``rand_like`` compiled with Inductor's own Philox numbers: other values than
    eager's, the same dtype and shape: a pass, not a false alarm."""
    r = check_program(program_from_source(DROPOUT, name="dropout_native"), CheckOptions(), worker)
    assert r.verdict is Verdict.PASS and not r.is_bug
    assert r.evidence["native_random"] == "pass"  # the second run happened and passed
