"""Families left out when a campaign starts, in real interpreters (generate.availability).

Slow only because each probe imports torch in a fresh process; nothing is compiled (the check
is a stand-in). The interpreters are this Python without a module (``fake_python``).
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import torchsmith.campaign.loop as camp
from tests.unit.test_availability import fake_python
from torchsmith.campaign.config import CampaignConfig, CampaignError
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.verdict import CheckResult, Verdict

pytestmark = pytest.mark.slow
SRC = Path(__file__).resolve().parents[2] / "src"
FAMILIES = '''
from torchsmith.program.load import program_from_source

SRC = """import torch


def fn(x):
    return x + {seed}


def get_inputs():
    return [torch.ones(2)]
"""


class Plain:
    name = "plain"

    def __init__(self, **options):
        pass

    def generate(self, seed, ctx):
        return program_from_source(SRC.format(seed=seed), name=f"plain_{seed}")


class Needy(Plain):
    name = "needy"
    program_requires = ("expecttest",)


class NeedyHere(Plain):
    name = "needy_here"
    requires = ("a_module_nobody_has",)
'''


@pytest.fixture
def families(tmp_path, monkeypatch):
    (tmp_path / "fams").mkdir()
    (tmp_path / "fams" / "avail_fams.py").write_text(FAMILIES)
    monkeypatch.syspath_prepend(str(tmp_path / "fams"))
    return "avail_fams"


def fake_check(program, options, worker):
    return CheckResult(Verdict.PASS, None, program=program.name, digest=program.digest)


class Events:
    def __init__(self):
        self.events = []

    def update(self, stats):
        pass

    def event(self, kind, text):
        self.events.append((kind, text))


def test_a_family_left_out_under_python_gives_one_message_and_no_error_rows(
    tmp_path, families, monkeypatch
):
    monkeypatch.setattr(camp, "check_program", fake_check)
    python = fake_python(tmp_path / "py", ("expecttest",))
    mix = f"{families}:Plain=1,{families}:Needy=1,{families}:NeedyHere=1"
    cfg = CampaignConfig(
        out=tmp_path / "c", count=6, generator="mix", gen_options={"families": mix}, python=python
    )
    events = Events()
    summary = Campaign(cfg, progress=events).run()
    left = summary["families_left_out"]
    assert set(left) == {f"{families}:Needy", f"{families}:NeedyHere"}
    assert "needs expecttest in --python" in left[f"{families}:Needy"]
    assert "needs a_module_nobody_has in torchsmith's Python" in left[f"{families}:NeedyHere"]
    assert [k for k, _ in events.events] == ["warning", "warning"]
    assert summary["programs"] == 6 and summary["errors"] == 0
    with Store(tmp_path / "c", readonly=True) as s:
        assert {r["generator"] for r in s.rows()} == {f"{families}:Plain"}
        # the stored parameters keep what was asked: a later session probes again
        assert s.params()["gen_options"] == {"families": mix}


def test_opinfo_is_left_out_where_torchsmiths_python_lacks_expecttest(tmp_path):
    # torchsmith installed without expecttest: the OpInfo database cannot be imported where
    # programs are generated (a fresh process: this one has imported it already)
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "expecttest.py").write_text("raise ImportError('no expecttest here')\n")
    code = textwrap.dedent(
        """
        from torchsmith.generate.availability import left_out
        print(left_out("mix", {"families": "graph=1,opinfo=1"}, None))
        """
    )
    env = {**os.environ, "PYTHONPATH": f"{shadow}{os.pathsep}{SRC}"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert "'opinfo': \"needs expecttest in torchsmith's Python" in out.stdout
    assert "graph" not in out.stdout


def test_an_interpreter_without_torch_fails_the_campaign_before_its_first_program(
    tmp_path, families, monkeypatch
):
    monkeypatch.setattr(camp, "check_program", fake_check)
    python = fake_python(tmp_path / "py", ("torch",))
    cfg = CampaignConfig(out=tmp_path / "c", count=4, generator=f"{families}:Plain", python=python)
    with pytest.raises((CampaignError, ValueError), match="needs torch in --python"):
        Campaign(cfg).run()
    with Store(tmp_path / "c", readonly=True) as s:
        assert s.counts()["programs"] == 0 and s.params()["state"] == "failed"
