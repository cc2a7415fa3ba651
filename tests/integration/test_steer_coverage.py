"""Compiler line coverage measured in a real worker, and a steered campaign end to end."""

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.steer import LineCoverage, read_curve
from torchsmith.generate.coverage import compiler_lines
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program

SOURCE = """
import torch

class Model(torch.nn.Module):
    def forward(self, x):
        return torch.sin(x).cumsum(0) * 2

def get_inputs():
    return [torch.randn(6, 5)]
"""

OTHER = """
import torch

def fn(x, y):
    return torch.nn.functional.layer_norm(x @ y, (5,)).relu().amax(1)

def get_inputs():
    return [torch.randn(6, 4), torch.randn(4, 5)]
"""


def test_a_worker_reports_each_compiler_line_once_and_another_program_reaches_new_ones(worker):
    options = CheckOptions(timeout=120)
    first = compiler_lines(worker, Program(source=SOURCE, name="sin_cumsum"), options)
    assert first is not None
    assert any(f.startswith("_dynamo/") for f in first) and any(
        f.startswith("_inductor/") for f in first
    )
    again = compiler_lines(worker, Program(source=SOURCE, name="sin_cumsum"), options)
    assert again is not None
    twice = {(f, n) for f, ns in again.items() for n in ns if n in set(first.get(f, ()))}
    assert not twice  # never sent twice; a second compile may run a few lines of its own
    assert sum(map(len, again.values())) < 0.02 * sum(map(len, first.values()))
    cov = LineCoverage()
    cov.record("a", first)
    cov.record("a", again)
    other = compiler_lines(worker, Program(source=OTHER, model="fn", name="matmul_norm"), options)
    assert other and cov.record("b", other) > 50  # layer_norm and mm lowerings: lines not run yet


def test_a_steered_campaign_records_its_coverage_curve_and_resumes_it(tmp_path):
    cfg = CampaignConfig.new(
        tmp_path / "c",
        count=2,
        generator="mix",
        gen_options={"families": "graph=1"},
        steer=True,
        coverage_every=1,
        options=CheckOptions(timeout=120),
    )
    summary = Campaign(cfg).run()
    curve = read_curve(cfg.out)
    assert [r["seed"] for r in curve] == [0, 1]
    assert summary["coverage"]["lines"] == curve[-1]["total"] > 5000
    assert summary["coverage"]["baseline"] == curve[0]["total"]
    resumed = CampaignConfig.resumed(cfg.out, count=3)
    assert resumed.steer and resumed.coverage_every == 1
    summary = Campaign(resumed, resume=True).run()
    assert [r["seed"] for r in read_curve(cfg.out)] == [0, 1, 2]
    assert summary["coverage"]["samples"] == 3
