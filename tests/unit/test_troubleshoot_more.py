"""logs, profile, minify and --only: parsing, grouping, formatting, name resolution (no compile).

The real runs are in ``tests/integration/test_troubleshoot_more.py``.
"""

import pytest
import torch
from click.testing import CliRunner

from torchsmith.cli import main
from torchsmith.options import CheckOptions
from torchsmith.oracle.only import OnlyError, compile_only, resolve
from torchsmith.program.load import program_from_source
from torchsmith.reduce.source import forward_statements
from torchsmith.troubleshoot.common import LogRecord
from torchsmith.troubleshoot.logs import artifact_of, format_logs, group_by_step, parse_what
from torchsmith.troubleshoot.minify import (
    choose,
    format_minify,
    parse_minifier_log,
    repro_to_program,
)
from torchsmith.troubleshoot.profile import format_profile, speedup, stage_rows, summarize
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict


# -- --only ----------------------------------------------------------------------------------------
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def helper(self, x):
        return x * 2

    def forward(self, x):
        return self.helper(self.fc(x))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = Block()
        self.layers = torch.nn.ModuleList([torch.nn.ReLU()])

    def scale(self, x):
        return x + 1

    def forward(self, x):
        return self.scale(self.layers[0](self.block1(x)))


def gelu_approx(x):
    return x * torch.sigmoid(1.702 * x)


def test_only_resolves_submodules_methods_functions_and_the_target():
    net, ns = Net(), {"gelu_approx": gelu_approx, "Net": Net}
    assert resolve(net, ns, "block1")[0] == "submodule"
    assert resolve(net, ns, "self.block1.fc")[::2] == ("submodule", "block1.fc")
    assert resolve(net, ns, "layers.0")[0] == "submodule"
    assert resolve(net, ns, "scale")[::2] == ("method", "scale")
    kind, owner, attr = resolve(net, ns, "block1.helper")
    assert (kind, owner, attr) == ("method", net.block1, "helper")
    assert resolve(net, ns, "gelu_approx")[0] == "function"
    assert resolve(net, ns, "forward")[0] == "target"
    assert resolve(gelu_approx, ns, "gelu_approx")[0] == "target"
    with pytest.raises(OnlyError, match="candidates: block1, block1.fc"):
        resolve(net, ns, "nope")


def test_compile_only_compiles_the_named_part_in_place_and_checks_names_in_eager_runs():
    net, ns = Net(), {"gelu_approx": gelu_approx}
    assert compile_only(net, ns, "block1", None) is net  # eager run: only the check
    assert "forward" not in net.block1.__dict__
    assert compile_only(net, ns, "block1", {"backend": "eager"}) is net
    assert "forward" in net.block1.__dict__ and "forward" not in net.__dict__
    assert [n for n, _ in net.named_parameters()][0] == "block1.fc.weight"  # names unchanged
    compile_only(net, ns, "scale", {"backend": "eager"})
    assert "scale" in net.__dict__  # the instance's method, compiled
    compile_only(net, ns, "gelu_approx", {"backend": "eager"})
    assert ns["gelu_approx"] is not gelu_approx
    whole = compile_only(net, ns, "forward", {"backend": "eager"})
    assert whole is not net and isinstance(whole, torch.nn.Module)
    with pytest.raises(OnlyError):
        compile_only(net, ns, "missing", None)


def test_only_is_a_json_safe_check_option():
    opts = CheckOptions(only="block1")
    assert CheckOptions.from_dict(opts.to_dict()).only == "block1"
    assert CheckOptions().only is None


# -- logs --------------------------------------------------------------------------------------------
def rec(msg, cid="0/0", logger="torch._dynamo.symbolic_convert"):
    return LogRecord(logger, "INFO", msg, cid)


def test_parse_what_and_artifact_names():
    assert parse_what("dynamo, +aot,graph_breaks,dynamo") == ["dynamo", "+aot", "graph_breaks"]
    assert parse_what(["guards", "output_code,recompiles"]) == [
        "guards",
        "output_code",
        "recompiles",
    ]
    with pytest.raises(ValueError):
        parse_what("dynamo,bad name")
    with pytest.raises(ValueError):
        parse_what(" , ")
    assert artifact_of("torch._dynamo.guards.__guards") == "guards"
    assert artifact_of("torch._inductor.compile_fx") == "inductor"
    assert artifact_of("torch._functorch._aot_autograd.graph_compile") == "aot"


def test_group_by_step_follows_dynamos_step_markers_and_names_the_open_step():
    records = [
        rec("cache lookup"),
        rec("Step 1: torchdynamo start tracing forward prog.py:10"),
        rec("TRACE LOAD_FAST x", logger="torch._dynamo.symbolic_convert.__trace_bytecode"),
        rec("Step 1: torchdynamo done tracing forward (RETURN_VALUE)"),
        rec("Step 2: calling compiler function inductor"),
        rec("TRACED GRAPH", logger="torch._functorch._aot_autograd.x.__aot_graphs"),
        rec("Step 3: torchinductor compiling FORWARDS graph 0", logger="torch._inductor.c"),
        rec("lowering", logger="torch._inductor.graph"),
        rec("kernel ran", cid=""),
    ]
    sections, failed = group_by_step(records)
    titles = [(s.compile_id, s.title, s.status) for s in sections]
    assert titles == [
        ("0/0", "guards and setup", "none"),
        ("0/0", "step 1: Dynamo", "done"),
        ("0/0", "step 2: backend compiler (AOTAutograd + backend)", "open"),
        ("0/0", "step 3: Inductor", "open"),
        ("", "run", "none"),
    ]
    assert [r["artifact"] for r in sections[1].records] == ["dynamo", "trace_bytecode", "dynamo"]
    assert sections[3].records[-1]["message"] == "lowering"
    assert failed == {"compile_id": "0/0", "step": 3, "title": "Inductor"}
    closed = records[:4]
    assert group_by_step(closed)[1] is None
    broken = [
        rec("Step 1: torchdynamo start tracing forward p.py:1"),
        rec("Graph break in user code at p.py:3", logger="torch._dynamo.x.__graph_breaks"),
        rec("Restarting analysis due to symbolic_convert.py:277"),
        rec("Step 1: torchdynamo start tracing forward p.py:1", cid="0/0_1"),
        rec("Step 2: calling compiler function eager", cid="0/0_1"),
        rec("Step 2: done compiler function eager", cid="0/0_1"),
    ]
    sections, failed = group_by_step(broken)
    assert [(s.compile_id, s.step, s.status) for s in sections] == [
        ("0/0", 1, "restarted"),
        ("0/0_1", 1, "done"),  # a graph break ends tracing without "done tracing"
        ("0/0_1", 2, "done"),
    ]
    assert failed is None


def test_format_logs_cuts_long_messages_and_says_where_it_failed():
    sections, failed = group_by_step(
        [
            rec("Step 1: torchdynamo start tracing f x.py:1"),
            rec("\n".join(f"l{i}" for i in range(9))),
        ]
    )
    report = {
        "program": "p",
        "record_count": 2,
        "what": ["dynamo"],
        "backend": "inductor",
        "only": None,
        "sections": [s.__dict__ for s in sections],
        "error": {"type": "Unsupported", "summary": "boom"},
        "failed_step": failed,
    }
    text = format_logs(report, max_lines=3)
    assert "== [0/0] step 1: Dynamo (open) ==" in text and "(6 more lines" in text
    assert "it failed in step 1 (Dynamo) of compile 0/0" in text
    assert "l8" in format_logs(report, max_lines=None)


# -- profile -----------------------------------------------------------------------------------------
def test_summarize_stage_rows_and_speedup():
    s = summarize([0.001, 0.002, 0.003, 0.004, 0.005])
    assert (s["median_ms"], s["min_ms"], s["max_ms"]) == (3.0, 1.0, 5.0)
    assert (s["p25_ms"], s["p75_ms"], s["spread_pct"]) == (2.0, 4.0, 66.7)
    assert summarize([]) == {} and summarize([0.5])["spread_pct"] == 0.0
    rows = stage_rows({"compile_fx_inner": 2.0, "bytecode_tracing": 0.5, "other": 1.0})
    assert [(r["label"].split(" ")[0], r["depth"]) for r in rows] == [
        ("Dynamo", 1),
        ("Inductor", 3),
    ]
    assert speedup({"median_ms": 2.0}, {"median_ms": 0.5}) == 4.0
    assert speedup({}, {"median_ms": 0.5}) is None


def test_format_profile_shows_the_stage_tree_and_the_speedup():
    report = {
        "program": "p",
        "backend": "inductor",
        "only": "block1",
        "compile": {"stages": stage_rows({"_compile.compile_inner": 3.0, "compile_file": 1.25})},
        "graphs": 1,
        "graph_breaks": 0,
        "recompiles": 0,
        "runtime": {
            "warmup": 3,
            "repeat": 5,
            "eager": summarize([0.002] * 5),
            "compiled": summarize([0.001] * 5),
            "speedup": 2.0,
        },
        "trace": "/tmp/t.json",
        "error": None,
    }
    text = format_profile(report)
    assert "only block1" in text and "total (Dynamo frame compile)" in text
    assert "          C++ compile" in text and "1.250" in text
    assert "speedup (eager median / compiled median): 2.00x" in text and "perfetto" in text


# -- minify ------------------------------------------------------------------------------------------
REPRO = """
import os
os.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/x'
import torch
from torch import tensor, device
import torch._inductor.config
torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = 'compile_error'
isolate_fails_code_str = None
from torch.nn import *
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, sin):
        relu = torch.ops.aten.relu.default(sin);  sin = None
        return (relu,)

def load_args(reader):
    buf0 = reader.storage('0884', 128)
    reader.tensor(buf0, (4, 8), is_leaf=True)  # sin
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None)
"""


def test_repro_to_program_gives_a_canonical_program_with_get_inputs():
    config = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "compile_error"}
    source = repro_to_program(REPRO, "prog", "aot", config)
    program = program_from_source(source, name="m", scripts=False)
    assert (program.origin, program.model) == ("canonical", "Model")
    assert "import os" not in source and "run_repro" not in source and "mod = Repro()" not in source
    assert "def get_inputs():" in source and "InputReader()" in source
    assert f"compile_config = {config!r}" in source
    assert forward_statements(source) == 2
    with pytest.raises(ValueError):
        repro_to_program("import torch\n", "p", "aot", None)


def test_choose_picks_after_and_accuracy_from_the_verdict():
    crash = CheckResult(Verdict.CRASH, Phase.COMPILED, stage=Stage.INDUCTOR)
    wrong = CheckResult(Verdict.MISMATCH, Phase.COMPARE, stage=Stage.INDUCTOR)
    dyn = CheckResult(Verdict.CRASH, Phase.COMPILED, stage=Stage.DYNAMO)
    aot = CheckResult(Verdict.CRASH, Phase.COMPILED, stage=Stage.AOTAUTOGRAD)
    assert choose(crash, None, None) == ("aot", False)
    assert choose(wrong, "auto", None) == ("aot", True)
    assert choose(dyn, None, None) == ("dynamo", False)
    assert choose(aot, None, True) == ("dynamo", True)
    assert choose(crash, "dynamo", False) == ("dynamo", False)
    with pytest.raises(ValueError):
        choose(crash, "inductor", None)


def test_parse_minifier_log_counts_queries_and_nodes():
    text = (
        "Started off with 11 nodes\n\nStrategy: Truncate suffix (G: 8) (11 nodes, 3 inputs)\n"
        "SUCCESS: Went from 11 to 5 nodes\nStrategy: Delta Debugging (G: 2) (5 nodes, 1 inputs)\n"
        "SUCCESS: Went from 5 to 3 nodes\nMade 26 queries\nWrote minimal repro out to repro.py\n"
    )
    assert parse_minifier_log(text) == {
        "queries": 26,
        "start_nodes": 11,
        "end_nodes": 3,
        "finished": True,
        "error": None,
    }
    cut = parse_minifier_log("Started off with 9 nodes\nStrategy: a\nStrategy: b\n")
    assert (cut["queries"], cut["end_nodes"], cut["finished"]) == (2, 9, False)
    bad = parse_minifier_log("RuntimeError: Input graph did not fail the tester\n")
    assert bad["error"] == "RuntimeError: Input graph did not fail the tester"


def test_format_minify_says_gave_up_with_the_reason_and_the_check_verdict():
    report = {
        "program": "p",
        "dir": "out",
        "after": "dynamo",
        "repro_level": 2,
        "original": {"verdict": "crash", "stage": "dynamo"},
        "status": "gave up",
        "reason": "PyTorch's minifier wrote no minifier_launcher.py: the compiled run raised X",
        "queries": None,
        "nodes": {"start": None, "end": None},
        "seconds": {},
        "minified_source": None,
        "check": None,
        "finding": None,
    }
    text = format_minify(report)
    assert "TORCHDYNAMO_REPRO_AFTER=dynamo TORCHDYNAMO_REPRO_LEVEL=2" in text
    assert "status: gave up: PyTorch's minifier wrote no minifier_launcher.py" in text
    report.update(
        status="minified",
        reason="",
        queries=4,
        nodes={"start": 3, "end": 1},
        minified_source="class Model: ...\n",
        program_path="out/program.py",
        check={"verdict": "mismatch", "stage": "inductor", "reason": "r"},
        same_failure=False,
    )
    text = format_minify(report)
    assert "class Model: ..." in text and "NOT the same failure (expected crash/dynamo)" in text


# -- the command line --------------------------------------------------------------------------------
def test_cli_lists_the_new_commands_and_rejects_bad_usage_without_a_worker(tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["--help"]).output
    assert all(c in out for c in ("logs", "profile", "minify"))
    for cmd in ("check", "explain", "debug", "logs", "profile", "minify"):
        assert "--only" in runner.invoke(main, [cmd, "--help"]).output, cmd
    prog = tmp_path / "p.py"
    prog.write_text(
        "import torch\n\ndef fn(x):\n    return x\n\ndef get_inputs():\n    return [1]\n"
    )
    r = runner.invoke(main, ["logs", str(prog), "--what", "dynamo,bad name"])
    assert r.exit_code == 2 and "not a TORCH_LOGS name" in r.output
    assert runner.invoke(main, ["profile", str(prog), "--repeat", "0"]).exit_code == 2
    r = runner.invoke(main, ["minify", str(tmp_path / "missing.py")])
    assert r.exit_code == 2 and "no such file" in r.output
    script = tmp_path / "s.py"
    script.write_text("import torch\nprint(torch.compile(lambda x: x)(torch.ones(1)))\n")
    r = runner.invoke(main, ["check", str(script), "--only", "f"])
    assert r.exit_code == 2 and "--only needs a canonical program" in r.output
