"""``torchsmith report``: a finding as a pt2 bug report, every template section filled for real."""

import re
import subprocess
import sys

import torch

from torchsmith.check import check_program
from torchsmith.finding import write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.load import load_program
from torchsmith.reduce import reduce_finding
from torchsmith.report.markdown import checklist, render, title

from .conftest import DATA, EXAMPLES

RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
SECTIONS = [
    "### 🐛 Describe the bug",
    "#### Minimal repro",
    "#### Ablation",
    "#### Inductor bisect",
    "#### Fuzzer checklist (pt2 template)",
    "### Error logs",
    "### Versions",
]


def finding_for(worker, tmp_path, path, **opts):
    program = load_program(path)
    result = check_program(program, CheckOptions(**opts), worker)
    assert result.is_bug, result.reason
    return write_finding(tmp_path / "findings", program, result, seed=7, generator="test")


def test_mismatch_report_has_every_section_real_versions_and_a_checked_checklist(worker, tmp_path):
    f = finding_for(worker, tmp_path, EXAMPLES / "linear_relu.py", config={RELU_BUG: "accuracy"})
    reduced = reduce_finding(f, worker, time_budget=60)
    assert reduced is not None
    proc = subprocess.run(
        [sys.executable, "-m", "torchsmith", "report", str(f.folder), "--html"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    md = (f.folder / "report.md").read_text()
    assert md.startswith("# [inductor] [cpu] torch.relu: wrong result with torch.compile")
    positions = [md.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    # versions from collect_env, not made up
    assert f"PyTorch version: {torch.__version__}" in md and "Python version:" in md
    assert re.search(r"OS: .+", md)
    # the minimal repro is the reduced program, as a standalone script
    assert f"from finding `{f.id}`" in md and "fallback_random = True" in md
    assert "def forward(self, x):\n        return torch.relu(x)" in md.replace(
        "    return torch", "    return torch"
    )
    # ablation: each rung, from meta.json
    for rung, verdict in reduced.meta["ladder"].items():
        assert f"| `{rung}` |" in md and verdict in md
    assert "First failing stage: **inductor**." in md
    # error figures against fp64
    assert "| compiled vs fp64 |" in md and "| eager vs fp64 |" in md
    assert "- [x] Default tolerances: `tol=0.0001`" in md
    assert "- [x] fp64 baseline: the float64 run is `ok`" in md
    assert "- [x] `torch._inductor.config.fallback_random = True`" in md
    assert "generator seed 7" in md and "label `topic: fuzzer`" in md
    html = (f.folder / "report.html").read_text()
    assert "<h3>🐛 Describe the bug</h3>" in html and "<table>" in html and "☑" in html


def test_crash_report_title_traceback_and_checks_that_fail(worker, tmp_path):
    f = finding_for(
        worker, tmp_path, EXAMPLES / "linear_relu.py", config={RELU_BUG: "compile_error"}, tol=1e-2
    )
    # a C++ compile error is titled by the compiler's first error line, not the generic wrapper
    assert title(f).startswith("[inductor] [cpu]") and "C++ compile error: " in title(f)
    md = render(f, env="PyTorch version: test")
    assert "### Error logs\n\n```\n" in md and "CppCompileError" in md.split("### Error logs")[1]
    items = dict((text.split(":")[0], ok) for ok, text in checklist(f))
    assert items["Default tolerances"] is False  # tol=1e-2 is not the default: checked for real
    assert items["fp64 baseline"] is None  # not applicable to a crash
    assert "label `topic: fuzzer`" not in md
    # troubleshooting artifacts, when `torchsmith debug` left them, are linked
    (f.folder / "debug").mkdir()
    (f.folder / "debug" / "index.json").write_text("{}")
    (f.folder / "explain.json").write_text('{"graph_count": 1, "graph_break_count": 2}')
    md = render(f, env="x")
    assert "[compile artifacts (debug/)](debug/index.json)" in md
    assert "(explain.json): 1 graph(s), 2 graph break(s)" in md
    assert "tlparse" not in md
    (f.folder / "debug" / "tlparse").mkdir()
    (f.folder / "debug" / "tlparse" / "index.html").write_text("<html></html>")
    assert "[tlparse report](debug/tlparse/index.html)" in render(f, env="x")


def test_dynamo_report_names_the_stage_and_fullgraph(worker, tmp_path):
    f = finding_for(
        worker,
        tmp_path,
        DATA / "programs" / "build_set.py",
        fullgraph=True,
        config={"dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY": True},
    )
    t = title(f)
    assert t.startswith("[dynamo] [cpu]") and "BUILD_SET" in t and t.endswith("(fullgraph=True)")
    md = render(f, env="x")
    assert "| `eager` | ❌ crash |" in md
