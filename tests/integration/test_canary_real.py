"""The path canary against real faults (no stand-ins): a machine whose C++ compiler fails makes
every Inductor program crash the same way, and the canary says so; a fault that only the
program's own op carries (the injected relu bug) stays the program's."""

import os
import subprocess
import sys

import pytest

from torchsmith import CheckOptions, Stage, Verdict, check_program, load_program
from torchsmith.canary import Canary
from torchsmith.execute.worker import Worker

from .conftest import EXAMPLES

pytestmark = pytest.mark.slow


def broken_compiler_env(tmp_path) -> dict[str, str]:
    """The machine's fault: a g++ that links nothing, as one whose libstdc++ the linker could
    not open did on a GPU machine (it still says its version, which Inductor asks first); a
    fresh Inductor cache, so no kernel is reused."""
    cxx = tmp_path / "g++"
    cxx.write_text(
        '#!/bin/sh\ncase "$*" in *--version*|-v|*" -v") exec g++ "$@";; esac\n'
        'echo "ld: error: cannot open libstdc++.so: No such file or directory" >&2; exit 1\n'
    )
    cxx.chmod(0o755)
    return {**os.environ, "CXX": str(cxx), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "c1")}


def test_check_says_a_crash_every_program_shares_is_path_wide(tmp_path):
    cmd = [sys.executable, "-m", "torchsmith", "check", str(EXAMPLES / "linear_relu.py")]
    done = subprocess.run(cmd, env=broken_compiler_env(tmp_path), capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "CRASH" in done.stdout and "path-wide" in done.stderr, done.stderr


def test_a_broken_compiler_is_path_wide_and_a_programs_own_fault_is_not(tmp_path):
    program = load_program(EXAMPLES / "linear_relu.py")
    opts = CheckOptions(localize=False)
    broken = broken_compiler_env(tmp_path)
    with Worker(env=broken, log_dir=tmp_path / "w1") as w:
        r = check_program(program, opts, w)
        assert r.verdict is Verdict.CRASH and r.stage is Stage.INDUCTOR, r.reason
        why = Canary().screen(program, r, opts, lambda p, o: check_program(p, o, w))
    assert why and "same way" in why and "C++ compile error" in why

    # the program's own fault, on a working machine: the canary passes, the bug stays a bug
    injected = opts.replace(config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "compile_error"})
    fine = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "c2")}
    with Worker(env=fine, log_dir=tmp_path / "w2") as w:
        r = check_program(program, injected, w)
        assert r.verdict is Verdict.CRASH and r.stage is Stage.INDUCTOR, r.reason
        assert Canary().screen(program, r, injected, lambda p, o: check_program(p, o, w)) is None
