"""LLM generator: code extraction, prompts, steering, options, and the repair loop through the real
``openai`` client against a scripted OpenAI-compatible server on loopback (eager check stubbed
here; tests/integration/test_llm_mutate.py runs the same loop with a real worker)."""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from torchsmith.generate.coverage import Coverage, common_ops, rare_ops, report_features, steer
from torchsmith.generate.llm.generator import (
    LLMEndpointError,
    LLMGenerator,
    extract_code,
    problem_of,
)
from torchsmith.generate.llm.prompts import (
    Target,
    generation_messages,
    repair_message,
    select_targets,
)
from torchsmith.generate.protocol import GenContext, get_generator
from torchsmith.program.format import Program
from torchsmith.verdict import CheckResult, Phase, Verdict

# -- a scripted OpenAI-compatible chat server -------------------------------------------------


class ScriptedChatServer:
    """``POST /v1/chat/completions`` on 127.0.0.1 (ephemeral port) answering from a script.

    Each request gets the next reply (``str``) or error status (``int``); past the script or
    ``max_requests`` it answers 500. It records every request body and shuts itself down after
    ``lifetime`` seconds even if the test forgets to.
    """

    def __init__(self, replies: list[str | int], max_requests: int = 12, lifetime: float = 90.0):
        self.replies = list(replies)
        self.max_requests = max_requests
        self.lifetime = lifetime
        self.requests: list[dict[str, Any]] = []
        self.usage = {"prompt_tokens": 120, "completion_tokens": 80}
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    model = {"id": "scripted", "object": "model", "created": 0, "owned_by": "t"}
                    self._send(200, {"object": "list", "data": [model]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(n) or b"{}")
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                with server._lock:
                    server.requests.append(body)
                    i = len(server.requests) - 1
                    reply = server.replies[i] if i < len(server.replies) else 500
                if i >= server.max_requests or isinstance(reply, int):
                    self._send(int(reply), {"error": {"message": "scripted failure"}})
                    return
                u = server.usage
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{i}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "scripted"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {**u, "total_tokens": u["prompt_tokens"] + u["completion_tokens"]},
                    },
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.lifetime, self.httpd.shutdown)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)


INVALID = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x1, inp):
        v1 = torch.mm(x1, inp)
        return v1 + 1


def get_inputs():
    return [torch.randn(2, 10), torch.randn(2, 10)]
"""
REPAIRED = INVALID.replace("torch.mm(x1, inp)", "torch.mm(x1, inp.t())")
REDUCE = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        var, mean = torch.var_mean(x, dim=1, keepdim=True)
        return (x - mean) / (var + 1e-5).sqrt(), torch.logsumexp(x, dim=0)


def get_inputs():
    return [torch.randn(6, 9)]
"""
PROSE = (
    "Sure! Here is a program that exercises reductions with a normalization epilogue:\n\n"
    f"```python\n{REDUCE}```\n\nIt computes var_mean along dim 1 and a logsumexp along dim 0."
    " Let me know if you want variations!"
)
MM_REASON = (
    "`torch.mm` got `[2, 10]` and `[2, 10]`: not row-column aligned (mat1 and mat2 shapes"
    " cannot be multiplied (2x10 and 2x10))"
)


def mm_stub_check(program: Program) -> CheckResult:
    """Stands in for the worker's eager check: the unaligned mm is invalid, the rest passes."""
    if "torch.mm(x1, inp)" in program.source:
        return CheckResult(
            Verdict.INVALID,
            Phase.EAGER,
            MM_REASON,
            evidence={"summary": MM_REASON, "user_line": f"<torchsmith:{program.name}>:8: v1 = x"},
        )
    return CheckResult(Verdict.PASS, reason="valid in eager")


# -- extraction ---------------------------------------------------------------------------------
def test_extract_from_prose_and_fences():
    assert extract_code(PROSE) == REDUCE
    assert extract_code(f"~~~py\n{REDUCE}~~~") == REDUCE
    assert extract_code(f"<think>maybe ```python\nx = 1\n```</think>\n```python\n{REDUCE}```")
    assert extract_code(f"```\n{REDUCE}```") == REDUCE  # no language tag


def test_extract_prefers_the_program_and_skips_shell_blocks():
    text = (
        f"Install:\n```bash\npip install torch\n```\n```python\nx = 1\n```\n```python\n{REDUCE}```"
    )
    assert extract_code(text) == REDUCE


def test_extract_joins_a_split_program_and_reads_truncated_and_bare_code():
    model, inputs = REDUCE.split("\n\ndef get_inputs")
    split = f"```python\n{model}\n```\nand the inputs:\n```python\ndef get_inputs{inputs}```"
    code = extract_code(split)
    assert code is not None and "class Model" in code and "def get_inputs" in code
    truncated = f"Here you go:\n```python\n{REDUCE}"
    assert extract_code(truncated) == REDUCE
    bare = f"Here is the code.\n{REDUCE}\nHope this helps."
    assert extract_code(bare) == REDUCE


def test_extract_nothing():
    assert extract_code("") is None
    assert extract_code("I cannot help with that.") is None
    assert extract_code("<think>```python\nclass A: pass\n```") is None  # unterminated reasoning


# -- prompts, steering, options -----------------------------------------------------------------
def test_prompts_name_target_rare_ops_and_examples():
    t = select_targets("padding")[0]
    ex = Program(source="# header\nimport torch\nclass Model: pass\n", name="ex")
    msgs = generation_messages(t, [ex], ["F.pad", "nn.ZeroPad2d"], ["torch.relu"], nonce=7)
    assert msgs[0]["role"] == "system" and "get_inputs" in msgs[0]["content"]
    user = msgs[1]["content"]
    assert "padding" in user and "F.pad, nn.ZeroPad2d" in user and "torch.relu" in user
    assert "# header" not in user and "class Model" in user
    rep = repair_message(MM_REASON, "The failing line (7 of your program): v1 = ...")
    assert MM_REASON in rep and "failing line" in rep


def test_targets_include_optimizations_and_families():
    names = {t.name for t in select_targets(None)}
    assert {"attention", "conv_bn", "padding", "reductions", "indexing", "layout"} <= names
    assert any(n.startswith("family:") for n in names)
    assert [t.name for t in select_targets("family:scan")] == ["family:scan"]
    with pytest.raises(ValueError, match="no target matches"):
        select_targets("nonsense")


def test_steering_prefers_rare_targets_and_ops():
    a = Target("a", "A", "", ("torch.x",), ("inductor:a",))
    b = Target("b", "B", "", ("torch.y",), ("inductor:b",))
    counts = Counter({"inductor:a": 50, "op:x": 50})
    picks = Counter(steer([a, b], counts, Counter(), random.Random(i)).name for i in range(200))
    assert picks["b"] > 150
    t = Target("t", "T", "", ("torch.p", "torch.q", "torch.r"))
    assert rare_ops(t, Counter({"op:p": 5, "op:q": 1}), random.Random(0), 2) == [
        "torch.r",
        "torch.q",
    ]
    assert common_ops(Counter({"op:relu": 9, "op:add": 2}), min_count=3) == ["relu"]


def test_report_features_and_coverage():
    report = {
        "counters": {
            "inductor": {"fuse_attention": 1, "fxgraph_cache_miss": 1},
            "aten_mm_info": {"aten.bmm_2_4_4": 1},
            "graph_break": {"x": 2},
            "stats": {"unique_graphs": 2},
        },
        "lowerings": {"aten.add.Tensor": 2},
        "fallbacks": {"aten.sort.stable": 1},
        "metrics": {"fused_nodes": 3, "num_loop_reordering": 0},
    }
    f = report_features(report)
    assert f["inductor:fuse_attention"] == 1 and "inductor:fxgraph_cache_miss" not in f
    assert f["mm:aten.bmm"] == 1 and f["dynamo:graph_break"] == 2 and f["dynamo:graphs_multi"]
    assert f["lowering:aten.add.Tensor"] == 2 and f["fallback:aten.sort.stable"] == 1
    assert f["metric:fused_nodes"] == 3 and "metric:num_loop_reordering" not in f
    cov = Coverage()
    cov.add(f)
    merged = cov.merged(Counter({"mm": 2, "op:relu": 1}))  # the campaign's bare op names
    assert merged["op:mm"] == 2 and merged["op:relu"] == 1
    assert cov.summary()["programs"] == 1


def test_problem_of_keeps_the_explanation_verbatim_and_fixes_line_numbers():
    r = CheckResult(
        Verdict.INVALID, Phase.EAGER, MM_REASON, evidence={"user_line": "<t:llm_1>:8: v1 = a"}
    )
    p = problem_of(r, header_lines=1)
    assert p.kind == "invalid" and p.message == MM_REASON and "(7 of your program)" in p.detail
    nd = problem_of(CheckResult(Verdict.NONDETERMINISTIC, reason="two eager runs differ"))
    assert nd.kind == "nondeterministic" and "randomness" in nd.message


def test_options_from_cli_strings_and_errors(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("TS_NO_KEY", raising=False)
    with pytest.raises(ValueError, match="no endpoint configured"):
        LLMGenerator(api_key_env="TS_NO_KEY")
    g = get_generator(
        "llm",
        base_url="http://127.0.0.1:9/v1",
        repair_rounds="5",
        temperature="0.2",
        send_seed="false",
        feedback="ops",
        targets="attention",
    )
    assert isinstance(g, LLMGenerator)
    assert g.opts.repair_rounds == 5 and g.opts.temperature == 0.2 and g.opts.send_seed is False
    with pytest.raises(ValueError, match="unknown option"):
        LLMGenerator(base_url="http://x/v1", colour="blue")
    with pytest.raises(ValueError, match="expected int"):
        LLMGenerator(base_url="http://x/v1", repair_rounds="many")


# -- the repair loop over HTTP (stubbed eager check) --------------------------------------------
def make(server: ScriptedChatServer, **kw: Any) -> LLMGenerator:
    opts = {
        "base_url": server.base_url,
        "model": "scripted",
        "feedback": "ops",
        "targets": "reductions",
        "max_retries": 0,
        "request_timeout": 20,
        **kw,
    }
    return LLMGenerator(**opts)


def test_repair_loop_through_client_and_http():
    with ScriptedChatServer([INVALID, f"Fixed:\n```python\n{REPAIRED}```", PROSE]) as server:
        gen = make(server)
        ctx = GenContext(eager_check=mm_stub_check)
        p1 = gen.generate(1, ctx)
        p2 = gen.generate(2, ctx)
    assert p1 is not None and "torch.mm(x1, inp.t())" in p1.source and p1.name == "llm_1"
    assert p2 is not None and "torch.var_mean" in p2.source and "Sure!" not in p2.source
    assert len(server.requests) == 3
    repair = server.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and "torch.mm(x1, inp)" in repair[-2]["content"]
    assert repair[-1]["role"] == "user" and MM_REASON in repair[-1]["content"]
    assert server.requests[0]["model"] == "scripted" and server.requests[0]["seed"] == 1000
    s = gen.stats
    assert (s.programs, s.valid_first_try, s.valid_after_repair) == (2, 1, 2)
    assert s.repair_requests == 1 and s.problems == Counter({"invalid": 1})
    assert s.prompt_tokens == 3 * 120 and s.completion_tokens == 3 * 80
    assert s.tokens_per_valid == 300.0 and s.seconds_per_valid and s.seconds_per_valid > 0
    assert s.to_dict()["first_try_validity"] == 0.5 and s.to_dict()["after_repair_validity"] == 1
    assert gen.coverage.counts["op:var_mean"] == 1


def test_gives_up_after_k_rounds_and_counts_no_code():
    with ScriptedChatServer(["no code here, sorry", INVALID, INVALID]) as server:
        gen = make(server, repair_rounds=2)
        assert gen.generate(3, GenContext(eager_check=mm_stub_check)) is None
    assert len(server.requests) == 3
    assert "no Python code block" in server.requests[1]["messages"][-1]["content"]
    s = gen.stats
    assert (s.programs, s.valid_first_try, s.valid_after_repair) == (1, 0, 0)
    assert s.problems == Counter({"no_code": 1, "invalid": 2})


def test_endpoint_failures_stop_the_generator():
    with ScriptedChatServer([500, 500, 500]) as server:
        gen = make(server, max_api_failures=2)
        ctx = GenContext(eager_check=mm_stub_check)
        assert gen.generate(1, ctx) is None
        with pytest.raises(LLMEndpointError, match="2 requests in a row"):
            gen.generate(2, ctx)
    assert gen.stats.api_errors == 2


def test_model_is_listed_when_not_given():
    with ScriptedChatServer([REPAIRED]) as server:
        gen = make(server, model=None)
        assert gen.generate(1, GenContext(eager_check=mm_stub_check)) is not None
    assert gen.model == "scripted" and server.requests[0]["model"] == "scripted"
