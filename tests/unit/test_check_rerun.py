"""A failure another process caused is re-run once; one that recurs is judged as it is."""

import importlib

import pytest

from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.verdict import CheckResult

check = importlib.import_module("torchsmith.check")  # the package exports a function so named

VANISHED = {
    "verdict": "crash",
    "phase": "compiled",
    "evidence": {
        "exc_type": "ImportError",
        "message": "ImportError: /tmp/torchinductor_u/6w/c6w.main.so: cannot open shared "
        "object file: No such file or directory",
    },
}
TERM = {"verdict": "died", "phase": "compiled", "evidence": {"signal": "SIGTERM"}}
CAP = {
    "verdict": "died",
    "phase": "compiled",
    "evidence": {"signal": "SIGKILL", "memory_exceeded": True},
}
SEGV = {"verdict": "died", "phase": "compiled", "evidence": {"signal": "SIGSEGV"}}
PASS = {"verdict": "pass", "phase": None}


class _Worker:
    torch_version = "test"


def _run(monkeypatch, results):
    calls = []

    def fake(worker, request, options, timeout=None):
        calls.append(request)
        return CheckResult.from_dict(results[min(len(calls), len(results)) - 1])

    monkeypatch.setattr(check, "run_job", fake)
    prog = Program(source="import torch\ndef fn(x):\n    return x\n", model="fn")
    r = check.check_program(prog, CheckOptions(localize=False, bisect=False), worker=_Worker())
    return r, len(calls)


@pytest.mark.parametrize("first", [VANISHED, TERM])
def test_a_failure_from_outside_is_re_run_once_and_the_second_run_counts(monkeypatch, first):
    r, calls = _run(monkeypatch, [first, PASS])
    assert r.verdict.value == "pass" and calls == 2


@pytest.mark.parametrize("first", [VANISHED, TERM])
def test_a_failure_from_outside_that_recurs_is_judged_as_it_is(monkeypatch, first):
    r, calls = _run(monkeypatch, [first, first])
    assert r.verdict.value == first["verdict"] and calls == 2


@pytest.mark.parametrize("first", [CAP, SEGV])
def test_the_program_s_own_deaths_are_never_re_run(monkeypatch, first):
    r, calls = _run(monkeypatch, [first, PASS])
    assert r.verdict.value == "died" and calls == 1
