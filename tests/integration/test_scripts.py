"""Repro scripts as people paste them (``tests/data/scripts``), checked as they stand.

Every shape a maintainer sees in PyTorch's tracker: a plain function, ``@torch.compile(...)``
with arguments, compile kwargs that matter (``fullgraph``), config set by the script, a global
changed between calls, inputs from helpers and loops with a tuple, a list, a keyword and a
no-argument call, ``.cuda()`` and two compile sites, ``module.compile()``, an input written in
place, and a script that fails in eager. The planted Inductor fault makes the shapes that
should show a wrong result show it, at the right call and stage.
"""

from __future__ import annotations

import pytest

from torchsmith import CheckOptions, Stage, Verdict, check_program
from torchsmith.program.load import load_program

from .conftest import DATA

SCRIPTS = DATA / "scripts"
RELU = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}


def check(name: str, **options):
    program = load_program(SCRIPTS / f"{name}.py")
    assert program.origin == "script"
    return check_program(program, CheckOptions(timeout=180, **options), WORKER[0])


WORKER: list = []


@pytest.fixture(autouse=True)
def _worker(worker):
    WORKER[:] = [worker]


@pytest.mark.parametrize(
    "name", ["plain_function", "decorated_with_args", "sequence_global", "helper_loop_inputs",
             "cuda_two_sites", "module_compile_method", "mutates_input"],
)  # fmt: skip
def test_each_shape_passes_on_a_correct_compiler_and_fails_with_a_planted_fault(name):
    good = check(name)
    assert good.verdict is Verdict.PASS, good.reason
    assert good.evidence["script"] and good.evidence["calls"] >= 1
    bad = check(name, config=RELU)
    assert bad.verdict is Verdict.MISMATCH and bad.stage is Stage.INDUCTOR, bad.reason


def test_calls_are_judged_call_by_call_across_sites():
    r = check("sequence_global")
    assert r.evidence["calls"] == 3 and len(r.evidence["sites"]) == 1
    r = check("helper_loop_inputs")
    assert r.evidence["calls"] == 2 and len(r.evidence["sites"]) == 2
    bad = check("cuda_two_sites", config=RELU)  # relu is in the first site only
    assert bad.evidence["output"].startswith("calls[0]") and "Net" in bad.reason


def test_the_script_s_own_compile_arguments_and_config_apply():
    r = check("graph_break_fullgraph")
    assert r.verdict is Verdict.CRASH and r.stage is Stage.DYNAMO
    assert "graph_break" in r.reason
    r = check("config_in_script")  # sets inject_relu_bug_TESTING_ONLY itself
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
    assert check("plain_function").verdict is Verdict.PASS  # the config did not leak


def test_a_write_into_an_input_is_judged():
    bad = check("mutates_input", config=RELU)
    assert bad.evidence["output"].startswith("input[0]")


def test_a_script_that_fails_in_eager_is_invalid_with_the_op_and_constraint():
    r = check("eager_fails")
    assert r.verdict is Verdict.INVALID and not r.is_bug
    assert "`torch.mm` got `[2, 10]` and `[2, 10]`" in r.reason


def test_import_lists_each_compile_site_and_its_calls_and_converts_what_it_can():
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "torchsmith", "import", *args],
                              capture_output=True, text=True, timeout=300)  # fmt: skip

    sites = run("--sites", str(SCRIPTS / "helper_loop_inputs.py"))
    assert sites.returncode == 0  # a function script converts to a function program (#26)
    assert "def fn(pair, items, k=2):" in sites.stdout and "return [(xs[0], xs[1]), xs[2:], 3]" in (
        sites.stdout
    )
    assert "site line 21: f: torch.compile()" in sites.stderr
    assert "call 0: (([3, 3] float32, [3, 3] float32), [[3, 3] float32, [3, 3] float32], k=3)" in (
        sites.stderr
    )
    assert "site line 23: g" in sites.stderr and "call 0: ()" in sites.stderr
    module = run("--sites", str(SCRIPTS / "cuda_two_sites.py"))
    assert module.returncode == 0 and "class Model" in module.stdout
    assert "torch.compile(backend='aot_eager')" in module.stderr
