"""The worker protocol (one owner: ``execute/protocol.py``) and the campaign config rules."""

from __future__ import annotations

import json
import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torchsmith.campaign.config import CampaignConfig, CampaignError
from torchsmith.campaign.store import Store
from torchsmith.execute import protocol
from torchsmith.execute.protocol import JobOutcome, ProtocolError, Request
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.report.html import markdown_to_html

PROGRAM = Program(source="import torch\n", name="p", notes=("a", "b"))

programs = st.builds(
    Program,
    source=st.text(max_size=50),
    model=st.sampled_from(["Model", "Net"]),
    name=st.text(min_size=1, max_size=10),
    notes=st.lists(st.text(max_size=10), max_size=3).map(tuple),
)
options = st.builds(
    CheckOptions,
    backend=st.sampled_from(["inductor", "eager", "aot_eager"]),
    dtype=st.sampled_from([None, "float16", "float64"]),
    timeout=st.floats(1, 1000),
    seed=st.integers(0, 2**31),
    config=st.dictionaries(st.sampled_from(["inductor.a", "dynamo.b"]), st.integers(), max_size=2),
)


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["check", "eager", "bisect", "call"]),
    program=programs,
    opts=options,
    rid=st.integers(0, 10**6),
    kwargs=st.dictionaries(st.text(min_size=1, max_size=5), st.integers(), max_size=3),
)
def test_every_request_survives_the_pipe(kind, program, opts, rid, kwargs):
    req = {
        "check": lambda: Request.check(program, opts, "aot_eager"),
        "eager": lambda: Request.eager(program, opts),
        "bisect": lambda: Request.bisect(program, opts, "mismatch"),
        "call": lambda: Request.call("pkg.mod:fn", program, opts, **kwargs),
    }[kind]()
    line = req.to_line(rid)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert Request.from_line(line) == (rid, req)


def test_malformed_requests_are_refused_with_their_id():
    with pytest.raises(ProtocolError, match="options"):
        Request("check", PROGRAM)
    with pytest.raises(ProtocolError, match="unknown job kind"):
        Request("compile", PROGRAM, CheckOptions())
    with pytest.raises(ProtocolError, match="package.module:function"):
        Request.call("no_colon", None, CheckOptions())
    with pytest.raises(ProtocolError) as e:
        Request.from_line(json.dumps({"id": 7, "kind": "check"}))
    assert e.value.rid == 7


def test_worker_messages_and_outcomes():
    assert protocol.read_message(b"not json")["type"] == "garbage"
    msg = protocol.read_message(protocol.phase_message(3, "eager").encode().strip())
    assert msg == {"id": 3, "type": "phase", "phase": "eager"}
    bad = protocol.read_message(protocol.result_message(1, {"x": object()}).encode().strip())
    assert bad["type"] == "result" and "object" in bad["result"]["x"]  # default=str
    died = JobOutcome("died", phase="compiled", signal="SIGSEGV", memory_mb=100, timeout=5)
    assert died.failure("p") == "p: the worker was killed by SIGSEGV while in phase compiled"
    oom = JobOutcome("died", memory_exceeded=True, memory_mb=100)
    assert "memory cap of 100 MiB" in oom.how_died()
    assert JobOutcome("timeout", timeout=5).failure("p").startswith("p: no result within 5 s")
    assert JobOutcome("result", result={}).failure("p") is None


def test_worker_env_under_another_python_sees_only_torchsmith(tmp_path):
    here = protocol.worker_env(jobs=2)
    assert here["TORCHINDUCTOR_COMPILE_THREADS"] == "1" and here["OMP_NUM_THREADS"]
    assert all(p in here["PYTHONPATH"].split(os.pathsep) for p in sys.path if p)
    other = tmp_path / "python"
    other.symlink_to("/bin/true")
    env = protocol.worker_env(python=str(other))
    (root,) = env["PYTHONPATH"].split(os.pathsep)
    assert os.listdir(root) == ["torchsmith"]
    assert os.path.realpath(os.path.join(root, "torchsmith")) == os.path.realpath(
        protocol.__file__.rsplit("/execute/", 1)[0]
    )


def test_campaign_config_owns_the_resume_rules(tmp_path):
    with pytest.raises(CampaignError, match="no campaign.db"):
        CampaignConfig.resumed(tmp_path)
    cfg = CampaignConfig.new(tmp_path, seed=5, jobs=1, count=10)
    with Store(tmp_path) as s:
        s.set_params(**cfg.to_params())
    with pytest.raises(CampaignError, match="already holds a campaign"):
        CampaignConfig.new(tmp_path)
    again = CampaignConfig.resumed(tmp_path, jobs=2, count=None)
    assert (again.seed, again.jobs, again.count) == (5, 2, 10)
    with pytest.raises(CampaignError, match="cannot change: --seed, the check options"):
        CampaignConfig.resumed(tmp_path, seed=5, options=CheckOptions())
    with pytest.raises(CampaignError, match="no such file"):
        CampaignConfig.new(tmp_path / "new", known_file=str(tmp_path / "missing.txt"))


def test_report_html_is_rendered_by_markdown_it_and_escapes_program_text():
    page = markdown_to_html("### Bug\n\n| a |\n|---|\n| `<x>` |\n\n- [x] ok\n- [ ] no\n\n<script>")
    assert "<h3>Bug</h3>" in page and "<td><code>&lt;x&gt;</code></td>" in page
    assert "☑ ok" in page and "☐ no" in page and "<script>" not in page


def test_a_retire_note_rides_on_results_and_errors_and_nothing_else_changes():
    from torchsmith.execute import protocol

    plain = protocol.result_message(3, {"verdict": "pass"})
    assert protocol.with_retire(plain, None) == plain
    msg = protocol.read_message(protocol.with_retire(plain, "CUDA error: x").encode())
    assert msg == {
        "id": 3,
        "type": "result",
        "result": {"verdict": "pass"},
        "retire": "CUDA error: x",
    }
    try:
        raise ValueError("boom")
    except ValueError as e:
        err = protocol.error_message(4, e)
    msg = protocol.read_message(protocol.with_retire(err, "spent").encode())
    assert msg["type"] == "error" and msg["retire"] == "spent" and "boom" in msg["error"]
