"""Tempting false alarms end as pass or unstable; the same programs with a real fault as mismatch.

Each program in ``tests/data/false_alarms`` is numerically sensitive on purpose (fp16 math cast to
int, near-ties, 1/x and log near zero, cancelling sums, boundaries of floor/remainder, pivoting).
Most of them make the raw oracle (``same()`` against float64) flag a difference on torch 2.13 CPU
(``RAW_CANDIDATES``); the probe must explain every one. With a real wrong answer injected (a test
backend that moves one op's output by 50 % and more, or Inductor's relu accuracy injection) the
same programs must still be reported.
"""

import json

import pytest

from torchsmith import CheckOptions, Verdict, check_program, load_program
from torchsmith.execute.protocol import Request
from torchsmith.oracle.probe import SENSITIVITY_JOB
from torchsmith.program.load import program_from_source

from .conftest import DATA

CORPUS = DATA / "false_alarms"
GOLDEN = json.loads((DATA / "verdicts.json").read_text())["data"]
NAMES = sorted(p.stem for p in CORPUS.glob("*.py"))

#: Programs the raw oracle flags on torch 2.13 CPU (mismatch or nan-mismatch before the probe).
RAW_CANDIDATES = {
    "acos_near_one",
    "argmax_fp16_exp",
    "argmax_near_ties",
    "bf16_math_to_int",
    "cancelling_sum",
    "comparison_of_equals",
    "floor_at_boundary",
    "floor_divide_at_boundary",
    "fp16_product_to_int",
    "fp16_sum_to_float",
    "layer_norm_flat_rows",
    "log_near_zero",
    "lu_factor_near_tie_pivot",
    "reciprocal_near_zero",
    "remainder_at_boundary",
    "softmax_large_logits",
    "sort_repeated_values",
    "sqrt_of_cancellation",
    "topk_ties",
}

#: A backend that runs Dynamo's graph with the last float result moved by a wrong-answer amount:
#: two thirds of the elements by 0.5 * (1 + |x|), alternately up and down.
PERTURB_BACKEND = """

def _ts_wrong(x):
    flat = x.reshape(-1)
    pattern = (torch.arange(flat.numel()) % 3 - 1).to(x.dtype)
    wrong = (flat + pattern * (1 + flat.abs()) * 0.5).reshape(x.shape)
    return torch.empty_like(x).copy_(wrong)  # x's layout kept: only the values are wrong


@torch._dynamo.register_backend
def ts_wrong_answer(gm, example_inputs):
    last = None
    for node in gm.graph.nodes:
        value = node.meta.get("example_value")
        if node.op.startswith("call_") and isinstance(value, torch.Tensor):
            if value.is_floating_point():
                last = node
    assert last is not None, "no float result to perturb"
    with gm.graph.inserting_after(last):
        wrong = gm.graph.call_function(_ts_wrong, (last,))
    last.replace_all_uses_with(wrong, delete_user_cb=lambda user: user is not wrong)
    gm.recompile()
    return gm.forward
"""


def test_the_corpus_is_big_enough():
    assert len(NAMES) >= 15
    assert RAW_CANDIDATES <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_tempting_false_alarm_is_not_a_mismatch(worker, name):
    program = load_program(CORPUS / f"{name}.py")
    r = check_program(program, CheckOptions(localize=False), worker)
    assert r.verdict in (Verdict.PASS, Verdict.UNSTABLE), (r.verdict, r.reason)
    # the verdict recorded in tests/data/verdicts.json (the corpus test leaves this folder to us)
    assert r.verdict.value == GOLDEN[f"false_alarms/{name}.py"]["verdict"], (r.verdict, r.reason)
    assert not r.is_bug and r.exit_code in (0, 2)
    if name in RAW_CANDIDATES:  # the raw oracle flagged it: the probe ran and explained it
        probe = r.evidence.get("probe")
        assert probe and probe["candidate"] in ("mismatch", "nan-mismatch"), r.evidence
        assert probe["leaves"] and all(leaf["explained"] for leaf in probe["leaves"])


@pytest.mark.parametrize("name", NAMES)
def test_the_same_program_with_a_wrong_answer_is_a_mismatch(worker, name):
    backend = f"ts_wrong_{name}"  # a backend name can be registered once per worker
    source = (CORPUS / f"{name}.py").read_text() + PERTURB_BACKEND.replace(
        "ts_wrong_answer", backend
    )
    program = program_from_source(source, name=f"{name}_wrong")
    opts = CheckOptions(backend=backend, localize=False)
    r = check_program(program, opts, worker)
    assert r.verdict is Verdict.MISMATCH, (r.verdict, r.reason, r.evidence.get("probe"))
    assert r.is_bug
    if "probe" in r.evidence:
        assert r.evidence["confidence"]["score"] > 1


RELU = [n for n in NAMES if "relu" in (CORPUS / f"{n}.py").read_text()]


@pytest.mark.parametrize("name", RELU)
def test_inductor_relu_accuracy_injection_is_still_a_mismatch(worker, name):
    program = load_program(CORPUS / f"{name}.py")
    opts = CheckOptions(
        localize=False, config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}
    )
    r = check_program(program, opts, worker)
    assert r.verdict is Verdict.MISMATCH, (r.verdict, r.reason)
    assert r.evidence["confidence"]["level"] in ("medium", "high")


def test_without_the_probe_the_raw_difference_shows(worker):
    program = load_program(CORPUS / "fp16_product_to_int.py")
    r = check_program(program, CheckOptions(localize=False, probe=False), worker)
    assert r.verdict is Verdict.MISMATCH and "probe" not in r.evidence


def test_generators_can_ask_whether_a_program_is_unstable_without_compiling(worker):
    def ask(path):
        program = load_program(path)
        request = Request.call(SENSITIVITY_JOB, program, CheckOptions())
        out = worker.run(request, 120)
        assert out.status == "result", out.error
        return out.result

    unstable = ask(CORPUS / "comparison_of_equals.py")
    assert unstable["unstable"] is True and unstable["flagged"]
    stable = ask(DATA.parent.parent / "src" / "torchsmith" / "examples" / "linear_relu.py")
    assert stable["unstable"] is False and stable["runs"]
