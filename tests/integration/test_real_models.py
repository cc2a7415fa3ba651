"""Real models as people run them (``bench/real_models/``), judged in a real worker.

A slice of ``bench/real_models.py`` the suite can afford: BERT and Llama forward (tiny
``transformers`` configs built locally, no download; skipped without ``transformers``), the
ConvNet with gradients, and Inductor's planted relu fault in a ReLU MLP, which must be judged a
compiler bug at the Inductor stage. The other models (GPT-2, T5, ViT, Qwen2-MoE, Whisper, the
compiled SGD step) and the transformers models with ``--grad`` are the bench's.
"""

from pathlib import Path

import pytest

from torchsmith.check import check_program
from torchsmith.options import CheckOptions
from torchsmith.program.load import load_program
from torchsmith.verdict import Category, Stage, Verdict

PROGRAMS = Path(__file__).resolve().parents[2] / "bench" / "real_models"
RELU_FAULT = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}


def check(name: str, worker, **options):
    return check_program(load_program(PROGRAMS / f"{name}.py"), CheckOptions(**options), worker)


@pytest.mark.parametrize(
    "name, grad, uses_transformers",
    [
        ("bert", False, True),
        ("llama", False, True),
        ("convnet", True, False),
    ],
)
def test_a_real_model_compiles_like_eager(worker, name, grad, uses_transformers):
    if uses_transformers:
        pytest.importorskip("transformers")
    result = check(name, worker, grad=grad, timeout=600)
    if name == "llama" and result.verdict is not Verdict.PASS:
        # Llama's output holds its key/value cache (a DynamicCache, walked leaf by leaf): the
        # cache is built by cat with an empty tensor, contiguous in eager, kv's own layout
        # under Inductor. Strides only, in the cache only: a lesser bug, never a wrong value.
        assert result.category is Category.LESSER, result.reason
        failing = result.evidence.get("failing_outputs") or [result.evidence.get("output")]
        assert all("['cache']" in str(p) for p in failing), failing
        return
    assert result.verdict is Verdict.PASS, result.reason


def test_the_planted_relu_fault_in_a_real_model_is_a_bug_at_inductor(worker):
    clean = check("relu_mlp", worker)
    faulty = check("relu_mlp", worker, config=RELU_FAULT)
    assert clean.verdict is Verdict.PASS, clean.reason
    assert faulty.is_bug and faulty.verdict is Verdict.MISMATCH, faulty.reason
    assert faulty.stage is Stage.INDUCTOR
