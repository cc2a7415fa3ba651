"""Programs that kill, hang or exhaust their worker get verdicts; the run goes on."""

import json

from torchsmith import CheckOptions, Phase, Stage, Verdict, check_program
from torchsmith.check import check_files
from torchsmith.program.load import program_from_source

from .conftest import DATA, EXAMPLES


def test_segfault_hang_and_runaway_allocation_each_get_a_verdict_and_the_run_goes_on():
    crashy = DATA / "crashy"
    paths = [
        crashy / "segfault.py",
        crashy / "hang.py",
        crashy / "runaway_alloc.py",
        crashy / "os_exit.py",
        crashy / "abort.py",
        EXAMPLES / "linear_relu.py",
    ]
    opts = CheckOptions(timeout=20, memory_mb=2048)
    got = {p.stem: r for p, r, err in check_files(paths, opts)}
    assert got["segfault"].verdict is Verdict.DIED
    assert got["segfault"].evidence["signal"] == "SIGSEGV"
    assert got["hang"].verdict is Verdict.TIMEOUT
    assert got["hang"].timings["wall"] < 20 + 5
    assert got["runaway_alloc"].verdict is Verdict.LIMIT  # the tool cannot hold it
    assert got["runaway_alloc"].evidence["memory_exceeded"]
    assert got["os_exit"].evidence["returncode"] == 3
    assert got["abort"].evidence["signal"] == "SIGABRT"
    golden = json.loads((DATA / "verdicts.json").read_text())["data"]
    for name in ("segfault", "hang", "runaway_alloc", "os_exit", "abort"):
        assert got[name].phase is Phase.EAGER and not got[name].is_bug  # eager's fault
        # the recorded verdicts (test_verdict_corpus.py leaves this folder to this test)
        want = golden[f"crashy/{name}.py"]
        assert (got[name].verdict.value, got[name].stage) == (want["verdict"], want["stage"])
    assert got["linear_relu"].verdict is Verdict.PASS


BACKEND_SEGV = """
import ctypes
import torch

@torch._dynamo.register_backend
def ts_test_segv(gm, example_inputs):
    ctypes.string_at(0)

class Model(torch.nn.Module):
    def forward(self, x):
        return torch.sin(x) + 1
def get_inputs():
    return [torch.randn(4)]
"""


def test_death_in_the_compiled_phase_is_a_compiler_bug_of_that_backend(worker):
    prog = program_from_source(BACKEND_SEGV, name="backend_segv")
    r = check_program(prog, CheckOptions(backend="ts_test_segv", timeout=60), worker)
    assert r.verdict is Verdict.DIED and r.phase is Phase.COMPILED and r.is_bug
    assert r.evidence["signal"] == "SIGSEGV"
    assert r.stage is Stage.BACKEND
    assert r.ladder["eager"] == "pass" and r.ladder["ts_test_segv"] == "died"


BACKEND_TERM = """
import os
import signal
import torch

MARK = {mark!r}

@torch._dynamo.register_backend(name={name!r})
def _term(gm, example_inputs):
    if {always} or not os.path.exists(MARK):
        open(MARK, "w").close()
        os.kill(os.getpid(), signal.SIGTERM)  # as an operator's pkill would
    return gm

class Model(torch.nn.Module):
    def forward(self, x):
        return torch.sin(x) + 1
def get_inputs():
    return [torch.randn(4)]
"""


def test_a_worker_killed_once_from_outside_is_re_run_not_called_a_bug(worker, tmp_path):
    once = BACKEND_TERM.format(mark=str(tmp_path / "once"), always=False, name="ts_term_once")
    r = check_program(program_from_source(once), CheckOptions(backend="ts_term_once"), worker)
    assert r.verdict is Verdict.PASS, r.reason
    always = BACKEND_TERM.format(mark=str(tmp_path / "a"), always=True, name="ts_term_always")
    r = check_program(program_from_source(always), CheckOptions(backend="ts_term_always"), worker)
    assert r.verdict is Verdict.DIED and r.evidence["signal"] == "SIGTERM" and r.is_bug


def test_the_worker_stops_itself_at_its_cap_when_the_parent_is_too_slow_to_see_it(monkeypatch):
    """On a loaded machine the parent may not poll before the kernel's OOM killer acts; the
    worker watches its own memory and exits with the status that means "the cap"."""
    import torchsmith.execute.worker as worker_mod
    from torchsmith.execute.worker import Worker

    monkeypatch.setattr(worker_mod, "rss_mb", lambda pid: 0.0)  # the parent sees nothing
    opts = CheckOptions(timeout=60, memory_mb=1024)
    with Worker(memory_mb=1024) as w:
        got = check_program(
            program_from_source((DATA / "crashy" / "runaway_alloc.py").read_text()), opts, w
        )
    assert got.verdict is Verdict.LIMIT and got.evidence["memory_exceeded"], got.reason
