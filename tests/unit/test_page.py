"""The campaign page's data and HTML, and the regress table's logic, from a synthetic campaign:
a stand-in checker (no worker ever compiles), so this stays fast."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

import torchsmith.campaign.loop as camp
from torchsmith import regress
from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.cli import main
from torchsmith.finding import read_finding
from torchsmith.program.load import program_from_source
from torchsmith.regress import VersionRow, verdict_lines, version_key
from torchsmith.report.markdown import render
from torchsmith.report.page import render_page, write_page
from torchsmith.report.page_data import campaign_data
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict

SRC = """import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return {body}


def get_inputs():
    return [torch.randn(4)]
"""
#: seed % 8 -> body; relu bodies "mismatch" in Inductor, sinh ones crash in Dynamo, tan is
#: invalid, cosh kills the worker in eager (a fault), the rest pass.
BODIES = [
    "torch.relu(x).sin()",
    "x.cos()",
    "torch.relu(x) * 2",
    "torch.sinh(x)",
    "x.tan()",
    "x.exp()",
    "torch.cosh(x)",
    "torch.relu(x).sin() + 1",
]


class Gen:
    name = "fake"

    def generate(self, seed, ctx):
        return program_from_source(SRC.format(body=BODIES[seed % 8]), name=f"p{seed}")


def fake_check(program, options, worker) -> CheckResult:
    src = program.source
    common = dict(program=program.name, digest=program.digest, options=options.to_dict())
    if "relu" in src:
        return CheckResult(Verdict.MISMATCH, Phase.COMPARE, stage=Stage.INDUCTOR,
                           timings={"compiled": 2.0}, **common)  # fmt: skip
    if "sinh" in src:
        ev = {"exc_type": "torch._dynamo.exc.Unsupported", "message": "sinh is not supported"}
        return CheckResult(Verdict.CRASH, Phase.COMPILED, stage=Stage.DYNAMO, evidence=ev,
                           timings={"compiled": 0.3}, **common)  # fmt: skip
    if "tan" in src:
        return CheckResult(Verdict.INVALID, Phase.EAGER, **common)
    if "cosh" in src:
        ev = {"signal": "SIGSEGV"}
        return CheckResult(Verdict.DIED, Phase.EAGER, evidence=ev, **common)
    return CheckResult(Verdict.PASS, None, timings={"compiled": 1.0}, **common)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("campaign")
    mp = pytest.MonkeyPatch()
    mp.setattr(camp, "check_program", fake_check)
    try:
        Campaign(CampaignConfig(out=out, count=16, generator="fake"), generator=Gen()).run()
    finally:
        mp.undo()
    return out


def test_page_data_counts_verdicts_stages_families_and_ops(campaign):
    data = campaign_data(campaign, env="(env)", generator=Gen())
    s = data["summary"]
    assert s["programs"] == 16 and s["findings"] == 8 and s["bugs"] == 4 and s["faults"] == 2
    assert data["verdicts"] == {"mismatch": 6, "pass": 4, "crash": 2, "invalid": 2, "died": 2}
    assert data["stages"] == {"dynamo": {"crash": 2}, "inductor": {"mismatch": 6}}
    assert data["stage_bugs"] == {"dynamo": 1, "inductor": 3}
    (fam,) = data["families"]
    assert fam["family"] == "fake" and fam["findings_per_k"] == 500.0
    # the page re-generated all 16 programs (digests match): per-op rates are exact
    ops = {r["op"]: r for r in data["ops"]["rows"]}
    assert data["ops"]["exact"] and data["ops"]["sampled"] == 16
    assert ops["relu"] == {"op": "relu", "findings": 6, "bugs": 3, "programs": 6, "per_k": 1000.0}
    assert ops["sin"]["programs"] == 4 and ops["sinh"]["per_k"] == 1000.0
    assert ops["cos"]["findings"] == 0 and ops["cos"]["per_k"] == 0.0
    assert data["ops"]["rows"][0]["per_k"] == 1000.0  # highest rate first
    assert sorted(len(v) for v in data["compile_s"].values()) == [0, 4, 8]
    tl = data["timeline"]
    assert tl["findings"][-1][1] == 8 and tl["bugs"][-1][1] == 4 and len(tl["new_bugs"]) == 4
    assert sum(1 for _ in tl["rate"]) >= 2 and all(r >= 0 for _, r in tl["rate"])
    json.dumps(data)  # plain data, no objects


def test_page_data_bugs_carry_repro_report_and_version_table(campaign):
    data = campaign_data(campaign, env="(env)", generator=Gen())
    bugs = {b["readable"]: b for b in data["bugs"]}
    assert set(bugs) >= {"wrong-value|inductor|relu,sin", "wrong-value|inductor|mul,relu"}
    b = bugs["wrong-value|inductor|relu,sin"]
    assert b["count"] == 2 and b["stage"] == "inductor" and b["first_recorded"]
    assert "torch.relu(x).sin()" in b["repro"] and "class Model" in b["repro"]
    assert b["report_md"].startswith("# [inductor] [cpu]") and "(env)" in b["report_md"]
    assert b["regress"] is None
    finding = read_finding(b["finding_dir"])
    here = finding.meta["versions"]["torch"]  # re-checked there too: replaces the record
    rows = [VersionRow("/venv-a/bin/python", "2.6.0", "live", "mismatch", "inductor"),
            VersionRow("/venv-b/bin/python", here, "passes", "pass")]  # fmt: skip
    regress.write_regress(finding, rows)
    fixed = f"fixed between 2.6.0 and {here}"
    try:
        again = {x["readable"]: x for x in campaign_data(campaign, env="e")["bugs"]}
        table = again["wrong-value|inductor|relu,sin"]["regress"]
        assert table["summary"] == [fixed] and len(table["rows"]) == 2
        md = render(finding, env="e")
        assert "### Torch versions" in md and fixed in md
        assert md.index("### Torch versions") < md.index("### Versions")
        page = render_page(campaign_data(campaign, env="e"), campaign)
        assert fixed in page and "/venv-a/bin/python" in page
    finally:
        (finding.folder / regress.REGRESS_JSON).unlink()


def test_page_is_self_contained_with_one_svg_per_plot(campaign, tmp_path):
    path = write_page(campaign, tmp_path / "out" / "page.html", env="(env)", generator=Gen())
    page = path.read_text()
    assert page.startswith("<!doctype html>") and "<script" not in page
    # offline: nothing loads from the network (namespace URIs inside SVG are not loads)
    loads = re.findall(r'(?:src|href)="(https?:[^"]*)"', page)
    assert loads == [] and "@import" not in page
    plots = re.findall(r'<figure class="plot" id="plot-([a-z]+)">(<svg|<p class="empty")', page)
    assert [p for p, _ in plots] == [
        "rate", "found", "verdicts", "stages", "families", "ops", "compile",
    ]  # fmt: skip
    assert all(kind == "<svg" for _, kind in plots)
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # several SVGs, one document: no clashing ids
    assert "<title>relu:" in page  # bar tooltips
    assert page.count('<section class="bug"') == 4 and "Minimal repro" in page
    # links to the finding folders are relative to the page
    assert 'href="../../' in page and str(campaign) not in re.findall(r'href="([^"]+)"', page)


def test_op_rates_need_the_same_programs(campaign):
    # the campaign's own generator is not a pure registry generator: no re-generation
    data = campaign_data(campaign, reports=False, op_budget_s=5)
    assert data["ops"]["sampled"] == 0 and "not pure" in data["ops"]["source"]
    assert all(r["per_k"] is None for r in data["ops"]["rows"])
    assert data["bugs"][0]["report_md"] is None
    page = render_page(data, campaign)
    assert "Compiler-bug findings per op" in page and "No per-op rate" in page


def test_status_html_writes_the_page(campaign, tmp_path, monkeypatch):
    import torchsmith.report.markdown as markdown

    monkeypatch.setattr(markdown, "collect_env", lambda: "(env)")  # seconds otherwise
    out = tmp_path / "p.html"
    res = CliRunner().invoke(main, ["status", str(campaign), "--json", "--html", str(out)])
    assert res.exit_code == 0, res.output
    assert out.exists() and "Distinct bugs (4)" in out.read_text()
    assert json.loads(res.stdout)["programs"] == 16


def test_version_order_and_verdict_lines():
    order = ["2.13.0+cpu", "2.6.0+cu124", "2.13.0rc1", "2.13.0.dev20260101", "2.10.1", "junk"]
    assert sorted(order, key=version_key) == [
        "2.6.0+cu124", "2.10.1", "2.13.0.dev20260101", "2.13.0rc1", "2.13.0+cpu", "junk",
    ]  # fmt: skip

    def rows(*pairs):
        return [VersionRow(f"/py{i}", t, s) for i, (t, s) in enumerate(pairs)]

    assert verdict_lines(rows(("2.13.0", "passes"), ("2.6.0", "live"))) == [
        "fixed between 2.6.0 and 2.13.0"
    ]
    assert verdict_lines(rows(("2.5.0", "passes"), ("2.6.0", "other-bug"), ("2.7.0", "live"))) == [
        "regressed between 2.5.0 and 2.6.0",
        "still live in 2.7.0 (the newest checked)",
    ]
    # a version that cannot judge the program is skipped between its neighbours
    assert verdict_lines(rows(("2.5.0", "live"), ("2.6.0", "not-judged"), ("2.7.0", "passes"))) == [
        "fixed between 2.5.0 and 2.7.0"
    ]
    assert verdict_lines(rows(("2.5.0", "passes"))) == ["does not reproduce on any version checked"]
    assert verdict_lines(rows(("2.5.0", "error"))) == ["no version could judge the program"]


def test_regress_table_merges_runs_and_keeps_the_record(campaign):
    with Store(campaign, readonly=True) as store:
        bug = next(b for b in store.bugs() if b.stage == "dynamo")
    finding = read_finding(campaign / "findings" / bug.smallest)
    recorded_torch = finding.meta["versions"]["torch"]
    try:
        first = regress.write_regress(finding, [VersionRow("/a", "1.0.0", "passes", "pass")])
        assert [r["torch"] for r in first["rows"]] == ["1.0.0", recorded_torch]
        assert first["rows"][1]["recorded"] and first["rows"][1]["status"] == "live"
        assert first["summary"][0] == f"regressed between 1.0.0 and {recorded_torch}"
        # a later run for another interpreter keeps the first; one on the recorded torch
        # replaces the record
        second = regress.write_regress(
            finding, [VersionRow("/b", recorded_torch, "passes", "pass")]
        )
        assert [(r["python"], r["recorded"]) for r in second["rows"]] == [
            ("/a", False), ("/b", False),
        ]  # fmt: skip
        assert regress.read_regress(finding.folder) == second
        md = "\n".join(regress.markdown_lines(second))
        assert "| 1.0.0 | pass | - |  | ✅ passes | `/a` |" in md
        assert regress.text_lines(second)[-1] == "=> does not reproduce on any version checked"
    finally:
        (finding.folder / regress.REGRESS_JSON).unlink(missing_ok=True)


def test_regress_with_interpreters_that_cannot_run_a_worker(campaign, tmp_path):
    targets = regress.targets(campaign)
    assert len(targets) == 4 and all(f.result.is_bug for f in targets)
    assert [f.id for f in regress.targets(targets[0].folder)] == [targets[0].id]
    (table,) = regress.regress(targets[:1], ["/bin/false", "/no/such/python"], store=False)
    errors = [r for r in table["rows"] if not r["recorded"]]
    assert [r["status"] for r in errors] == ["error", "error"]
    assert all(r["reason"].startswith("worker:") for r in errors)
    assert not (targets[0].folder / regress.REGRESS_JSON).exists()
    res = CliRunner().invoke(main, ["regress", str(targets[0].folder), "--python", "/bin/false"])
    assert res.exit_code == 0, res.output
    assert "error" in res.stdout and (targets[0].folder / regress.REGRESS_JSON).exists()
    (targets[0].folder / regress.REGRESS_JSON).unlink()
    res = CliRunner().invoke(main, ["regress", str(tmp_path), "--python", "/bin/false"])
    assert res.exit_code == 2
