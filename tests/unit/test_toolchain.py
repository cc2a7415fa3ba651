"""The worker's linker rules (torchsmith.execute.toolchain): gold when present, the user's wins."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from torchsmith.dedup import unwrap_message
from torchsmith.execute import protocol, toolchain

needs_gcc = pytest.mark.skipif(not shutil.which("g++"), reason="no g++")


def fake_path(tmp_path, with_gold: bool, gold_body: str | None = None) -> str:
    """A PATH folder whose ``ld.gold`` is a script (by default it hands over to the system's
    ``ld``, so a test link through it works)."""
    bin_dir = tmp_path / ("bin-gold" if with_gold else "bin-none")
    bin_dir.mkdir()
    gold_body = gold_body or f'exec {shutil.which("ld") or "ld"} "$@"'
    if with_gold:
        gold = bin_dir / "ld.gold"
        gold.write_text(f"#!/bin/sh\n{gold_body}\n")
        gold.chmod(0o755)
        return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"  # g++ needs its as, ld
    return str(bin_dir)


@needs_gcc
def test_gold_is_chosen_when_the_machine_has_it(tmp_path):
    path = fake_path(tmp_path, with_gold=True)
    env = toolchain.linker_env({"PATH": path})
    ld = os.path.join(env["COMPILER_PATH"], "ld")
    assert os.path.realpath(ld) == os.path.realpath(
        os.path.join(path.split(os.pathsep)[0], "ld.gold")
    )
    assert os.listdir(env["COMPILER_PATH"]) == ["ld"]  # nothing else gcc could pick up
    assert toolchain.linker_name(env) == "gold"
    assert toolchain.linker_env(env) == env  # idempotent


@needs_gcc
def test_a_gold_that_cannot_link_with_this_gcc_is_not_used(tmp_path):
    # What a GPU machine had: its own GCC build, whose libstdc++.so the system's gold could not
    # open. Here the script stands in for any gold whose link fails.
    path = fake_path(
        tmp_path, with_gold=True, gold_body='echo "ld: error: cannot open" >&2; exit 1'
    )
    base = {"PATH": path}
    assert toolchain.linker_env(base) == base
    assert toolchain.linker_name(toolchain.linker_env(base)) == "default"


@needs_gcc
def test_a_gold_that_exits_0_without_a_library_is_not_used(tmp_path):
    base = {"PATH": fake_path(tmp_path, with_gold=True, gold_body="exit 0")}
    assert "COMPILER_PATH" not in toolchain.linker_env(base)


def test_no_gold_no_user_choice_leaves_gcc_alone(tmp_path):
    base = {"PATH": fake_path(tmp_path, with_gold=False)}
    assert toolchain.linker_env(base) == base
    assert toolchain.linker_name(base) == "default"


@pytest.mark.parametrize("value", ["default", "bfd", "DEFAULT "])
def test_the_user_can_keep_the_default_linker(tmp_path, value):
    base = {"PATH": fake_path(tmp_path, with_gold=True), toolchain.LINKER_VAR: value}
    assert "COMPILER_PATH" not in toolchain.linker_env(base)


def test_a_users_compiler_path_wins(tmp_path):
    base = {"PATH": fake_path(tmp_path, with_gold=True), "COMPILER_PATH": "/opt/mine"}
    env = toolchain.linker_env(base)
    assert env["COMPILER_PATH"] == "/opt/mine"
    assert toolchain.linker_name(env) == "COMPILER_PATH=/opt/mine"


def test_an_unknown_linker_is_refused(tmp_path):
    with pytest.raises(ValueError, match="TORCHSMITH_LINKER='lld'"):
        toolchain.linker_env({"PATH": fake_path(tmp_path, True), toolchain.LINKER_VAR: "lld"})


def test_linker_env_does_not_change_its_argument(tmp_path):
    base = {"PATH": fake_path(tmp_path, with_gold=True)}
    toolchain.linker_env(base)
    assert base == {"PATH": base["PATH"]}


def test_worker_env_applies_the_rule():
    env = protocol.worker_env(base={**os.environ, toolchain.LINKER_VAR: "default"})
    assert env.get("COMPILER_PATH") == os.environ.get("COMPILER_PATH")
    if shutil.which("ld.gold") and "COMPILER_PATH" not in os.environ:
        assert toolchain.linker_name(protocol.worker_env(base=dict(os.environ))) == "gold"


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("ld.gold")), reason="no g++/gold")
def test_gcc_really_links_with_gold_through_the_env(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text('extern "C" int k() { return 1; }\n')
    out = tmp_path / "k.so"
    base = {k: v for k, v in os.environ.items() if k != "COMPILER_PATH"}
    env = toolchain.linker_env({**base, toolchain.LINKER_VAR: "gold"})
    subprocess.run(["g++", "-shared", "-fPIC", str(src), "-o", str(out)], env=env, check=True)
    assert b".note.gnu.gold-version" in out.read_bytes()
    plain = tmp_path / "p.so"
    subprocess.run(["g++", "-shared", "-fPIC", str(src), "-o", str(plain)], env=base, check=True)
    assert b".note.gnu.gold-version" not in plain.read_bytes()


def test_another_gold_never_repoints_the_link_live_workers_use(tmp_path):
    real = toolchain.gold_dir("/usr/bin/ld.gold")
    other = toolchain.gold_dir(str(tmp_path / "ld.gold"))
    assert real != other
    assert os.readlink(real / "ld") == "/usr/bin/ld.gold"


# -- a C++ compile error without the compiler's output (torch 2.6) ---------------------------
def _cpp_error(cmd: str, output: str = "None") -> str:
    return f"C++ compile error\n\nCommand:\n{cmd}\n\nOutput:\n{output}"


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_compile_error_without_output_gets_the_compilers_first_errors(tmp_path):
    src = tmp_path / "k.cpp"
    src.write_text("int f() { int a = None < 0 ? None + 1 : None; return a; }\n")
    cmd = f"g++ {src} -std=c++17 -c -o {tmp_path / 'k.o'}"
    filled = toolchain.fill_compile_output(_cpp_error(cmd))
    assert "'None' was not declared" in filled.replace("\u2018", "'").replace("\u2019", "'")
    assert filled.startswith(_cpp_error(cmd, "")) and filled.endswith("running the command again)")
    assert unwrap_message(filled).startswith("C++ compile error: ")
    assert "None" in unwrap_message(filled)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_message_with_output_or_a_command_that_now_succeeds_is_left_alone(tmp_path):
    with_output = _cpp_error("g++ /nonexistent.cpp", "/x.cpp:1:1: error: boom")
    assert toolchain.fill_compile_output(with_output) == with_output
    src = tmp_path / "ok.cpp"
    src.write_text("int f() { return 1; }\n")
    fine = _cpp_error(f"g++ {src} -c -o {tmp_path / 'ok.o'}")
    assert toolchain.fill_compile_output(fine) == fine
    missing = _cpp_error("/no/such/compiler x.cpp")
    assert toolchain.fill_compile_output(missing) == missing
    other = "RuntimeError: boom\n\nCommand:\ng++ x\n\nOutput:\nNone"
    assert toolchain.fill_compile_output(other) == other
