"""The troubleshooting toolbox's parsing and formatting: no torch.compile runs here."""

import json
import operator

import pytest

from torchsmith.troubleshoot.common import TroubleshootError, clean_function_name, table
from torchsmith.troubleshoot.debug import (
    _organize,
    _prepare,
    describe,
    explain_summary,
    format_debug,
    list_files,
)
from torchsmith.troubleshoot.explain import (
    format_explain,
    op_name,
    parse_graph_break_log,
    parse_unsupported,
    stage_times,
)
from torchsmith.troubleshoot.recompiles import (
    format_recompiles,
    parse_limit_log,
    parse_recompile_log,
    parse_vary,
    step_label,
)

# Messages as torch 2.13 logs them (graph_breaks / recompiles artifacts), trimmed tracebacks.
PRINT_BREAK = """Graph break in user code at /p/breaks.py:14
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str'].
  Hint: Please report an issue to PyTorch.

  Developer debug context: builtin print [<class 'ConstantVariable'>] False

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html

User code traceback:
  File "/work/src/torchsmith/troubleshoot/explain.py", line 236, in explain_run
    compiled(*inputs)
  File "/p/breaks.py", line 14, in forward
    print("forward saw")
"""

IF_BREAK = """Graph break in user code at /p/breaks.py:16
Graph Break Reason: Data-dependent branching
  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.

      The branch condition involves a tensor computed as follows:
        gt = gt(sum_1, 0)

  Hint: Use `torch.cond` to express dynamic control flow.

  Developer debug context: attempted to jump with TensorVariable()

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html

User code traceback:
  File "/p/breaks.py", line 16, in torch_dynamo_resume_in_forward_at_14
    if y.sum() > 0:
"""

RECOMPILE_SIZE = """Recompiling function forward in /p/m.py:11
    triggered by the following guard failure(s):
    - 0/1: tensor 'x' size mismatch at index 0. expected 4, actual 8
    - 0/0: tensor 'x' size mismatch at index 0. expected 2, actual 8"""

RECOMPILE_ATTR = """Recompiling function forward in /p/m.py:12
    triggered by the following guard failure(s):
    - 0/0: self.scale == 2                                          # return x * self.scale  # /p/m.py:13 in forward (HINT: integer attributes are static.)
    - User stack trace:
    -   File "/p/m.py", line 13, in forward
    -     return x * self.scale"""

LIMIT = """torch._dynamo hit config.recompile_limit (3)
   function: 'forward' (/p/m.py:11)
   last reason: 0/2: tensor 'x' size mismatch at index 0. expected 8, actual 16
To log all recompilation reasons, use TORCH_LOGS="recompiles"."""


def test_graph_break_log_print_and_data_dependent_if():
    p = parse_graph_break_log(PRINT_BREAK)
    assert (p["file"], p["line"], p["gb_id"]) == ("/p/breaks.py", 14, "gb0059")
    assert p["gb_type"] == "Failed to trace builtin operator"
    assert p["explanation"].startswith("Dynamo does not know how to trace builtin operator `print`")
    assert len(p["hints"]) == 2 and p["url"].endswith("gb0059.html")
    assert p["frames"][-1] == {"file": "/p/breaks.py", "line": 14, "function": "forward"}
    q = parse_graph_break_log(IF_BREAK)
    assert (q["line"], q["gb_type"], q["gb_id"]) == (16, "Data-dependent branching", "gb0170")
    assert q["explanation"].endswith("Dynamo does not support tracing dynamic control flow.")
    assert q["hints"] == ["Use `torch.cond` to express dynamic control flow."]
    assert clean_function_name(q["frames"][-1]["function"]) == "forward"


def test_graph_break_log_old_form_and_other_messages():
    old = "Graph break in user code at /p/a.py:3\nGraph Break Reason: Unsupported: Tensor.item\n"
    p = parse_graph_break_log(old)
    assert (p["line"], p["gb_type"], p["explanation"], p["url"]) == (
        3,
        "Unsupported: Tensor.item",
        "",
        None,
    )
    assert parse_graph_break_log("Recompiling function forward in a.py:1") is None


def test_recompile_log_with_entries_multiline_guards_and_limit():
    r = parse_recompile_log(RECOMPILE_SIZE)
    assert (r["function"], r["file"], r["line"]) == ("forward", "/p/m.py", 11)
    assert [f["entry"] for f in r["failures"]] == ["0/1", "0/0"]
    assert r["failures"][0]["reason"] == "tensor 'x' size mismatch at index 0. expected 4, actual 8"
    a = parse_recompile_log(RECOMPILE_ATTR)
    assert len(a["failures"]) == 1  # the "User stack trace" lines belong to the failure
    f = a["failures"][0]
    assert (f["reason"], f["code"], f["where"]) == (
        "self.scale == 2",
        "return x * self.scale",
        "/p/m.py:13 in forward",
    )
    assert f["hint"] == "integer attributes are static."
    legacy = parse_recompile_log("Recompiling function f in a.py:1\n  - ___check_obj_id(L['k'], 1)")
    assert legacy["failures"] == [
        {
            "entry": None,
            "reason": "___check_obj_id(L['k'], 1)",
            "code": None,
            "where": None,
            "hint": None,
        }
    ]
    lim = parse_limit_log(LIMIT)
    assert lim == {
        "limit": "recompile_limit",
        "value": 3,
        "function": "forward",
        "last_reason": "0/2: tensor 'x' size mismatch at index 0. expected 8, actual 16",
    }
    assert parse_limit_log(RECOMPILE_SIZE) is None


def test_parse_vary_forms():
    assert parse_vary("dim=0:2,4,8") == {
        "kind": "dim",
        "inputs": [0],
        "dim": 0,
        "values": [2, 4, 8],
    }
    assert parse_vary("input=0+1,dim=-1:3") == {
        "kind": "dim",
        "inputs": [0, 1],
        "dim": -1,
        "values": [3],
    }
    assert parse_vary("dtype=float32,float16") == {
        "kind": "dtype",
        "values": ["float32", "float16"],
    }
    assert parse_vary("attr=block.k:1,True,mean") == {
        "kind": "attr",
        "name": "block.k",
        "values": [1, True, "mean"],
    }
    assert step_label(parse_vary("input=1,dim=0:2"), 2) == "input1.size(0)=2"
    assert step_label(parse_vary("attr=k:1"), "a") == "k='a'"


@pytest.mark.parametrize(
    "spec, words",
    [
        ("dim=0", "expected dim=D"),
        ("dim=x:2", "integers"),
        ("dim=0:", "no values"),
        ("dtype=int7", "float32"),
        ("size=0:2", "unknown keys"),
        ("attr=a b:1", "attr=NAME"),
        ("dim=0:-2", "negative"),
    ],
)
def test_parse_vary_rejects_with_a_message(spec, words):
    with pytest.raises(ValueError, match=words):
        parse_vary(spec)


def test_op_names_and_stage_times():
    assert op_name("call_function", operator.mul) == "operator.mul"
    assert op_name("call_method", "sum") == "Tensor.sum"
    assert op_name("call_module", "fc") == "self.fc"
    assert op_name("call_function", getattr) == "getattr"

    class OpOverload:
        def __str__(self):
            return "aten.add.Tensor"

    assert op_name("call_function", OpOverload()) == "aten.add.Tensor"
    assert stage_times({"bytecode_tracing": 0.5, "build_guards": 0.1, "x": 9.0}) == {
        "dynamo trace": 0.5,
        "guards": 0.1,
    }


def _explain_report(**extra):
    report = {
        "schema": 1,
        "program": "breaks",
        "backend": "eager",
        "dynamic": None,
        "graph_count": 2,
        "graph_break_count": 1,
        "op_count": 3,
        "graphs": [
            {
                "index": 0,
                "ops": ["torch.relu", "operator.mul"],
                "op_count": 2,
                "ends_with": "graph break",
                "code": "",
            },
            {"index": 1, "ops": ["torch.sin"], "op_count": 1, "ends_with": "return", "code": ""},
        ],
        "breaks": [
            {
                "index": 1,
                "graph": 0,
                "file": "/p/breaks.py",
                "line": 14,
                "function": "forward",
                "code": 'print("hi")',
                "gb_type": "Failed to trace builtin operator",
                "gb_id": "gb0059",
                "explanation": "no print",
                "hints": ["avoid print"],
                "url": "https://x/gb/gb0059.html",
                "reason": "Failed",
            }
        ],
        "compile_times": {"stages": {"total": 0.25}, "all": {}, "first_call_s": 0.3},
        "error": None,
    }
    report.update(extra)
    return report


def test_format_explain_is_a_compact_table():
    text = format_explain(_explain_report())
    assert text.splitlines()[0] == "breaks: 2 graphs, 1 graph break, 3 ops (backend eager)"
    assert "relu, operator.mul" in text and "p/breaks.py:14 in forward" in text
    assert 'print("hi")' in text and "docs: https://x/gb/gb0059.html" in text
    assert "compile times (s): total 0.25, first call 0.30" in text
    err = {"type": "Unsupported", "summary": "graph break", "message": ""}
    assert "compiled run raised Unsupported: graph break" in format_explain(
        _explain_report(error=err)
    )


def test_format_recompiles_names_guards_and_limit():
    failure = {
        "entry": "0/0",
        "reason": "tensor 'x' size mismatch at index 0. expected 4, actual 2",
        "code": None,
        "where": None,
        "hint": None,
    }
    steps = [
        {
            "index": 0,
            "label": "as written",
            "status": "compiled",
            "new_graphs": 1,
            "recompiles": [],
            "limit": None,
            "error": None,
        },
        {
            "index": 1,
            "label": "input0.size(0)=2",
            "status": "recompiled",
            "new_graphs": 1,
            "recompiles": [
                {
                    "function": "forward",
                    "file": "/p/m.py",
                    "line": 11,
                    "compile_id": "0/1",
                    "failures": [failure],
                }
            ],
            "limit": None,
            "error": None,
        },
        {
            "index": 2,
            "label": "input0.size(0)=8",
            "status": "limit",
            "new_graphs": 0,
            "recompiles": [],
            "error": None,
            "limit": {
                "limit": "recompile_limit",
                "value": 2,
                "function": "forward",
                "last_reason": None,
            },
        },
    ]
    report = {
        "program": "m",
        "backend": "eager",
        "dynamic": False,
        "recompile_limit": 2,
        "compiles": 2,
        "recompile_count": 1,
        "limit_hit": True,
        "steps": steps,
    }
    text = format_recompiles(report)
    assert "3 calls, 2 compilations, 1 recompilations" in text
    assert "cache entry 0/0: tensor 'x' size mismatch at index 0. expected 4, actual 2" in text
    assert "hit recompile_limit (2)" in text
    assert "recompile limit hit: config.recompile_limit=2 for forward" in text


def test_debug_roles_listing_and_folder_handling(tmp_path):
    assert describe("inductor/model__0_inference_0.0/output_code.py").startswith("generated code")
    assert describe("inductor/g/ir_pre_fusion.txt") == "Inductor IR before fusion"
    assert describe("inductor/g/ir_post_fusion.txt") == "Inductor IR after fusion"
    assert describe("dynamo_graphs/graph_3.py").startswith("Dynamo FX graph")
    assert describe("notes.md") is None

    # torch's layout is lifted to short paths; empty logs go.
    run = tmp_path / "torch_compile_debug" / "run_2026_01_01-pid_1"
    (run / "torchinductor" / "model__0_inference_0.0").mkdir(parents=True)
    (run / "torchinductor" / "model__0_inference_0.0" / "output_code.py").write_text("code")
    (run / "torchinductor" / "aot_model___0_debug.log").write_text("")
    (run / "torchdynamo").mkdir()
    (run / "torchdynamo" / "debug.log").write_text("")
    (tmp_path / "worker.log").write_text("")
    _organize(tmp_path)
    files = {f["path"]: f["role"] for f in list_files(tmp_path)}
    assert set(files) == {"inductor/model__0_inference_0.0/output_code.py", "worker.log"}

    index = {
        "program": "m",
        "dir": str(tmp_path),
        "options": {"backend": "inductor"},
        "files": [{"path": p, "role": r, "bytes": 1} for p, r in files.items()],
        "tlparse": {"ran": False, "reason": "tlparse is not installed"},
        "explain": _explain_report(),
        "error": None,
    }
    text = format_debug(index)
    assert "inductor/model__0_inference_0.0/output_code.py" in text and "tlparse is not" in text
    summary = explain_summary(index, tmp_path.parent)
    assert summary["generated_code"] == [
        f"{tmp_path.name}/inductor/model__0_inference_0.0/output_code.py"
    ]
    assert summary["graph_break_count"] == 1 and summary["breaks"][0]["line"] == 14
    json.dumps(summary)

    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(TroubleshootError, match="not a torchsmith debug folder"):
        _prepare(other)
    _prepare(tmp_path)  # ours (worker.log): cleared
    assert not (tmp_path / "inductor").exists() and (tmp_path / "other" / "keep.txt").exists()


def test_table_pads_all_but_the_last_column():
    assert table([(1, "ab", "x")], ("n", "name", "note")) == "  n  name  note\n  1  ab    x"


def test_unsupported_message_from_fullgraph_is_a_break():
    msg = (
        PRINT_BREAK.split("Graph Break Reason:", 1)[1].split("User code traceback:")[0]
        + 'from user code:\n   File "/p/breaks.py", line 14, in forward\n    print("x")\n'
    )
    p = parse_unsupported(msg)
    assert (p["file"], p["line"], p["gb_type"]) == (
        "/p/breaks.py",
        14,
        "Failed to trace builtin operator",
    )
    assert parse_unsupported("CppCompileError: C++ compile error") is None
