"""The campaign page in a real browser: a small real campaign (a planted Inductor fault, so there
are findings), ``torchsmith status DIR --html``, then headless Chromium loads the file, the
test checks every plot rendered (an SVG of real size with drawn marks) and that the console
stayed clean, and takes a full-page screenshot. Skipped, saying so, without Chromium (Debian's
``chromium`` package; ``.ci/run`` installs it)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.cli import main
from torchsmith.options import CheckOptions

from .browser import Browser, find_chromium

CHROMIUM = find_chromium()
PLOTS = ["rate", "found", "verdicts", "stages", "families", "ops", "compile"]

#: Per plot: id, the SVG's rendered size, how many marks it draws, its title text.
MEASURE = """JSON.stringify([...document.querySelectorAll('figure.plot')].map(f => {
  const s = f.querySelector('svg');
  const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
  const marks = s ? [...s.querySelectorAll('path, use, rect')].filter(e => {
    const b = e.getBoundingClientRect(); return b.width > 0 || b.height > 0; }).length : 0;
  return {id: f.id.replace('plot-', ''), width: r.width, height: r.height, marks,
          text: s ? s.textContent.replace(/\\s+/g, ' ').slice(0, 200) : ''};
}))"""


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "campaign"
    options = CheckOptions(config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"},
                           timeout=120)  # fmt: skip
    cfg = CampaignConfig(out=out, count=6, gen_options={"ops": "relu,add", "max_nodes": 3},
                         options=options)  # fmt: skip
    summary = Campaign(cfg).run()
    assert summary["programs"] == 6 and summary["bugs"] >= 1, summary
    return out


@pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install chromium;"
    " .ci/run installs it): the browser test of the campaign page is skipped",
)
def test_campaign_page_renders_in_chromium(campaign, tmp_path):
    import json

    from PIL import Image

    page = tmp_path / "site" / "campaign.html"
    res = CliRunner().invoke(main, ["status", str(campaign), "--html", str(page)])
    assert res.exit_code == 0, res.output
    assert page.exists() and page.stat().st_size < 2_000_000

    with Browser(CHROMIUM) as browser:
        browser.load(page.resolve().as_uri())
        plots = json.loads(browser.evaluate(MEASURE))
        assert [p["id"] for p in plots] == PLOTS
        for p in plots:
            assert p["width"] > 300 and p["height"] > 80, p
            assert p["marks"] >= 10, p
        assert "Programs per minute" in plots[0]["text"]
        assert "relu" in plots[PLOTS.index("ops")]["text"]
        assert browser.evaluate("document.querySelectorAll('p.empty').length") == 0
        bugs = browser.evaluate("document.querySelectorAll('section.bug').length")
        assert bugs >= 1
        assert browser.evaluate("document.querySelectorAll('section.bug pre code').length") >= bugs
        assert browser.errors() == []
        shot = browser.screenshot(tmp_path / "campaign.png")

        # the harness is not blind: a page with a broken script and console.error is caught
        bad = tmp_path / "bad.html"
        bad.write_text("<p>x</p><script>console.error('bad'); undefinedFunction();</script>")
        browser.load(bad.as_uri())
        browser.evaluate("1")
        errors = browser.errors()
        assert any("console: bad" in e for e in errors)
        assert any(e.startswith("Uncaught ReferenceError") for e in errors), errors

    keep = os.environ.get("TORCHSMITH_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / "campaign.png")
        shutil.copy(page, Path(keep) / "campaign.html")
    with Image.open(shot) as img:
        width, height = img.size
        assert width >= 1300 and height >= 2000  # the full page, not only the window
        colors = img.convert("RGB").getcolors(maxcolors=1_000_000)
        assert colors is not None and len(colors) > 100  # plots, not a blank page
