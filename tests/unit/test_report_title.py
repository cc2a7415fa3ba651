"""Report titles name what is wrong: a gradient-only mismatch is titled a wrong gradient."""

from __future__ import annotations

from pathlib import Path

from torchsmith.finding import Finding
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.report.markdown import title
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict

SOURCE = "import torch\n\n\ndef fn(x):\n    return x * 2\n\n\ndef get_inputs():\n    return [torch.ones(2)]\n"


def finding(output: str) -> Finding:
    figures = {"compiled_vs_fp64": {"max_abs": 3.0}, "eager_vs_fp64": {"max_abs": 1e-7}}
    r = CheckResult(
        Verdict.MISMATCH, Phase.COMPARE, "x", {"output": output, "figures": figures}, Stage.INDUCTOR
    )
    meta = {**r.to_dict(), "id": "f", "options": CheckOptions().to_dict()}
    return Finding(Path("."), meta, Program(SOURCE, "fn", "p", "generated"))


def test_a_gradient_only_mismatch_is_titled_a_wrong_gradient():
    assert "wrong gradient with torch.compile (max abs error vs fp64 3" in title(
        finding("grad['input0']")
    )
    assert "wrong result with torch.compile" in title(finding("out[0]"))
