"""Issue 27: check is right on the code people run (real compiles, real workers).

Programs in ``tests/data/outputs`` (written from the issue's public facts): structured outputs
holding cache objects, values undefined by construction (``torch.empty``), tiny outputs of
accurate functions judged in ulps; the relu accuracy injection shows that what must still be
compared by value is.
"""

import pytest

from torchsmith import CheckOptions, Verdict, check_program, load_program
from torchsmith.program.load import program_from_source

from .conftest import DATA

OUT = DATA / "outputs"
RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"


def run(worker, name, **opts):
    return check_program(load_program(OUT / name), CheckOptions(**opts), worker)


def test_structured_output_with_a_cache_object_passes(worker):
    r = run(worker, "structured_cache.py")
    assert r.verdict is Verdict.PASS, r.reason


def test_wrong_tensor_inside_a_cache_object_is_named_by_its_path(worker):
    r = run(worker, "structured_cache.py", config={RELU_BUG: "accuracy"})
    assert r.verdict is Verdict.MISMATCH, r.reason
    failing = r.evidence["failing_outputs"]
    assert "out.cache.layers[0].keys" in failing and "out.cache.layers[1].values" in failing
    assert r.evidence["output"].startswith("out.")


def test_nondeterministic_names_the_output_and_the_size_of_the_difference(worker, tmp_path):
    src = (
        "import torch\n\nCALLS = []\n\n\n"
        "def fn(x):\n"
        "    CALLS.append(1)  # the list survives from run to run: the second run differs\n"
        "    return {'same': x * 2, 'grows': x * len(CALLS)}\n\n\n"
        "def get_inputs():\n    return [torch.ones(3)]\n"
    )
    r = check_program(program_from_source(src, name="grows"), CheckOptions(), worker)
    assert r.verdict is Verdict.NONDETERMINISTIC
    ev = r.evidence
    assert ev["output"] == "out['grows']" and ev["max_abs"] == 1.0 and ev["max_rel"] == 0.5
    assert "out['grows']" in r.reason and "max abs 1" in r.reason


def test_uninitialized_output_of_the_wrong_shape_is_meta_mismatch(worker):
    r = run(worker, "empty_wrong_shape.py")
    assert r.verdict is Verdict.META_MISMATCH, r.reason
    assert r.evidence["eager"] == "Tensor[3, 5] float32"


def test_empty_output_beside_a_result_passes_and_the_result_is_still_judged(worker):
    assert run(worker, "empty_beside_result.py").verdict is Verdict.PASS
    r = run(worker, "empty_beside_result.py", config={RELU_BUG: "accuracy"})
    assert r.verdict is Verdict.MISMATCH and r.evidence["output"] == "out[0]", r.reason


def test_written_empty_buffers_are_compared_by_value(worker):
    assert run(worker, "empty_written.py").verdict is Verdict.PASS
    r = run(worker, "empty_written.py", config={RELU_BUG: "accuracy"})
    assert r.verdict is Verdict.MISMATCH, r.reason
    assert set(r.evidence["failing_outputs"]) >= {"out[0]", "out[1]", "out[2]"}
    assert r.evidence["values_undefined"] == ["out[3]"]


def test_erf_of_tiny_values_is_judged_in_ulps(worker):
    r = run(worker, "erf_tiny.py")
    # Inductor's vectorized erf is accurate only in absolute terms on torch 2.13 CPU.
    assert r.verdict is Verdict.MISMATCH, r.reason
    assert r.evidence["rule"] == "ulps"
    assert (
        r.evidence["ulps"]["eager_max_ulps"] <= 4 <= 1024 <= r.evidence["ulps"]["compiled_max_ulps"]
    )
    leaf = r.evidence["probe"]["leaves"][0]
    assert not leaf["explained"]


def test_erfinv_near_one_stays_below_the_imprecise_line_with_or_without_the_probe(worker):
    # compiled erfinv near +-1 is ~107 ulps from fp64 on torch 2.13 CPU (relative 8e-6): under
    # IMPRECISE_ULPS (128, raised from 64 when a 66-ulp erf was flagged in the false-alarm
    # bench), so it is not even a candidate; at 64 it was imprecise without the probe
    assert run(worker, "erfinv_near_one.py").verdict is Verdict.PASS
    r = run(worker, "erfinv_near_one.py", probe=False)
    assert r.verdict is Verdict.PASS, r.reason


LLAMA = """
import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        config = LlamaConfig(
            vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        )
        self.lm = LlamaForCausalLM(config)

    def forward(self, input_ids):
        return self.lm(input_ids=input_ids, use_cache=True)


def get_inputs():
    return [torch.randint(0, 64, (2, 8))]
"""


def test_tiny_llama_with_its_cache_is_judged_not_nondeterministic(worker):
    pytest.importorskip("transformers")
    r = check_program(program_from_source(LLAMA, name="tiny_llama"), CheckOptions(), worker)
    # Its CausalLMOutputWithPast holds a DynamicCache; eager is deterministic leaf by leaf.
    assert r.verdict is not Verdict.NONDETERMINISTIC, r.reason
    if r.verdict is Verdict.META_MISMATCH:
        # torch 2.13 CPU: the cache's keys/values come from torch.cat([torch.tensor([]), kv]);
        # eager returns them contiguous, Inductor keeps kv's transposed layout (a real stride
        # difference, reproduced without transformers in the report). Values are not at fault.
        assert r.evidence["kind"] == "strides", r.reason
        assert r.evidence["output"].startswith("out['cache'].layers[")
        assert all(p.startswith("out['cache']") for p in r.evidence["failing_outputs"])
    else:
        assert r.verdict is Verdict.PASS, r.reason
