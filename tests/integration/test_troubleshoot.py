"""explain, recompiles and debug end to end: real torch.compile runs in real workers.

explain and recompiles share one worker (backend eager keeps them quick: graph breaks and guards
are Dynamo's business); debug and attach_troubleshooting need their own worker by design (the
debug environment variables are read when torch is imported), and compile with Inductor.
"""

import json
import os
import re
import subprocess
import sys

from torchsmith.finding import write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.load import load_program
from torchsmith.troubleshoot import (
    attach_troubleshooting,
    explain_program,
    parse_vary,
    recompiles_program,
)
from torchsmith.verdict import CheckResult, Phase, Verdict

from .conftest import DATA, EXAMPLES

TS = DATA / "troubleshoot"
EAGER = CheckOptions(backend="eager", timeout=120)


def cli(*args, timeout=300, env=None):
    return subprocess.run(
        [sys.executable, "-m", "torchsmith", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=None if env is None else {**os.environ, **env},
    )


def test_explain_reports_two_breaks_with_reasons_and_lines_and_one_graph_without(worker):
    r = explain_program(load_program(TS / "breaks.py"), EAGER, worker)
    assert (r["graph_count"], r["graph_break_count"], r["error"]) == (3, 2, None)
    printed, branch = r["breaks"]
    assert (printed["line"], printed["function"]) == (14, "forward")
    assert printed["gb_type"] == "Failed to trace builtin operator" and "print" in printed["code"]
    assert "`print`" in printed["explanation"] and printed["gb_id"]
    assert (branch["line"], branch["function"]) == (16, "forward")
    assert branch["gb_type"] == "Data-dependent branching" and branch["code"] == "if y.sum() > 0:"
    assert [b["graph"] for b in r["breaks"]] == [0, 1]
    assert "Tensor.sum" in r["graphs"][1]["ops"]

    full = explain_program(load_program(TS / "breaks.py"), EAGER.replace(fullgraph=True), worker)
    assert full["error"]["type"] == "Unsupported" and full["graph_count"] == 0
    assert [(b["line"], b["gb_type"]) for b in full["breaks"]] == [(14, printed["gb_type"])]

    c = explain_program(load_program(TS / "clean.py"), EAGER, worker)
    assert (c["graph_count"], c["graph_break_count"], c["breaks"]) == (1, 0, [])
    assert c["graphs"][0]["ends_with"] == "return" and c["op_count"] == 4


def test_recompiles_on_batch_size_with_dynamic_false_names_the_size_guard(worker):
    options = EAGER.replace(dynamic=False)
    program = load_program(TS / "attr_model.py")
    r = recompiles_program(
        program, [parse_vary("dim=0:2,8")], options, recompile_limit=2, worker=worker
    )
    statuses = [s["status"] for s in r["steps"]]
    assert statuses == ["compiled", "recompiled", "limit"]
    guard = r["steps"][1]["recompiles"][0]["failures"][0]["reason"]
    assert guard == "tensor 'x' size mismatch at index 0. expected 4, actual 2"
    assert r["limit_hit"] and r["steps"][2]["limit"]["value"] == 2
    assert r["recompile_count"] == 2  # the step that hit the limit also tried to recompile


def test_recompiles_on_an_attribute_and_a_dtype(worker):
    program = load_program(TS / "attr_model.py")
    varies = [parse_vary("attr=scale:3"), parse_vary("dtype=float64")]
    r = recompiles_program(program, varies, EAGER, worker=worker)
    assert [s["status"] for s in r["steps"]] == ["compiled", "recompiled", "recompiled"]
    attr = r["steps"][1]["recompiles"][0]["failures"][0]
    assert attr["reason"] == "self.scale == 2" and "self.scale" in attr["code"]
    assert "dtype mismatch" in r["steps"][2]["recompiles"][0]["failures"][0]["reason"]
    assert not r["limit_hit"]


def test_debug_cli_writes_generated_code_and_fx_graphs_and_lists_them(tmp_path):
    out = tmp_path / "dbg"
    done = cli("debug", str(TS / "clean.py"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    [code] = out.glob("inductor/*/output_code.py")
    graphs = [out / "dynamo_graphs" / "graph_0.py", *out.glob("inductor/*/fx_graph_readable.py")]
    assert all(p.exists() for p in graphs) and len(graphs) == 2
    assert list(out.glob("inductor/*/ir_post_fusion.txt")) and list(out.glob("trace/*.log"))
    for p in (code, *graphs):
        assert p.relative_to(out).as_posix() in done.stdout
    index = json.loads((out / "index.json").read_text())
    assert index["explain"]["graph_count"] == 1 and index["compile_times"]["stages"]["inductor"]


def test_attach_troubleshooting_on_a_crash_finding(tmp_path):
    options = CheckOptions(config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "runtime_error"})
    result = CheckResult(
        verdict=Verdict.CRASH, phase=Phase.COMPILED, reason="injected", options=options.to_dict()
    )
    finding = write_finding(tmp_path, load_program(EXAMPLES / "linear_relu.py"), result)
    summary = attach_troubleshooting(finding.folder, timeout=240)
    assert json.loads((finding.folder / "explain.json").read_text()) == summary
    assert (summary["graph_count"], summary["graph_break_count"]) == (1, 0)
    assert "the compiled run raised" in summary["error"]
    assert summary["generated_code"] and (finding.folder / summary["generated_code"][0]).exists()
    assert (finding.folder / "debug" / "index.json").exists()


def test_bad_input_exits_2_with_one_message(tmp_path):
    missing = cli("explain", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nclass Model(torch.nn.Module)\n    pass\n")
    syntax = cli("recompiles", str(bad), "--vary", "dim=0:2")
    assert syntax.returncode == 2 and "syntax error" in syntax.stderr
    spec = cli("recompiles", str(TS / "clean.py"), "--vary", "dim=0")
    assert spec.returncode == 2 and "--vary 'dim=0'" in spec.stderr
    # 3 s, plus the grace a fresh worker gets for its first compile (here 5 s, not 60)
    grace = {"TORCHSMITH_FIRST_JOB_GRACE": "5"}
    hang = cli("explain", str(DATA / "crashy" / "hang.py"), "--timeout", "3", env=grace)
    waited = re.search(r"no result within (\d+) s", hang.stderr)
    assert hang.returncode == 2 and waited and int(waited.group(1)) == 8  # the grace was honoured
