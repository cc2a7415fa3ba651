"""Data-dependent guards through the real check (``ddguard.py``): one in torch's own op code
(``logsumexp``'s reference guards on ``u0 == 0``) is a lesser crash on both paths, keyed by its
site; one in the program's own ``if`` is the program's fault on both paths. Each fails while
tracing, before any C++ compile, so the tier is cheap."""

from __future__ import annotations

import pytest

from torchsmith.check import check_program
from torchsmith.dedup import readable_signature
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.verdict import Category, Phase, Symptom, Verdict

pytestmark = pytest.mark.slow

BODY = {
    "torch": "    t = x[x[:, 0] > 0]\n    return t.logsumexp(0, keepdim=True) * 2\n",
    "user": "    t = x[x[:, 0] > 0]\n    if t.shape[0] > 2:\n        return t * 2\n    return t - 1\n",
}
CAPTURE = (
    'compile_config = {"dynamo.capture_dynamic_output_shape_ops": True,'
    ' "dynamo.capture_scalar_outputs": True}\n'
)


def program(body: str, kwargs: str) -> Program:
    source = (
        "import torch\n\n\ndef fn(x):\n" + BODY[body] + "\n\ndef get_inputs():\n"
        "    return [torch.arange(12.0).reshape(4, 3) / 8 - 0.3]\n\n\n"
        f"compile_kwargs = {kwargs}\n" + CAPTURE
    )
    return Program(source, "fn", f"dd_{body}", "generated")


@pytest.mark.parametrize("kwargs", ['{"fullgraph": True}', '{"backend": "aoti"}'])
def test_a_guard_in_torchs_op_code_is_a_lesser_crash_keyed_by_its_site(worker, kwargs):
    result = check_program(program("torch", kwargs), CheckOptions(timeout=600), worker)
    assert result.verdict is Verdict.CRASH and result.phase is Phase.COMPILED, result.reason
    assert result.symptom is Symptom.DATA_DEPENDENT and result.category is Category.LESSER
    assert result.evidence["dde_site"] == "_refs/__init__.py in logsumexp"
    sig = readable_signature(result)  # the site keys it, whatever the expression
    assert sig.startswith("data-dependent|") and "|data-dependent guard in _refs/" in sig
    assert "logsumexp" in sig and "Eq(" not in sig


@pytest.mark.parametrize("kwargs", ['{"fullgraph": True}', '{"backend": "aoti"}'])
def test_a_guard_in_the_programs_own_if_is_the_programs_fault(worker, kwargs):
    result = check_program(program("user", kwargs), CheckOptions(timeout=600), worker)
    assert result.verdict is Verdict.INVALID and result.phase is Phase.COMPILED, result.reason
    assert "data-dependent guard in" in result.reason and not result.is_bug
