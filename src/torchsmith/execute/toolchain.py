"""The linker a worker's Inductor links its C++ kernels with: GNU gold when the machine has it.

On CPU, Inductor builds every kernel into its own shared library: one ``g++`` run that compiles
the kernel against a precompiled header and links it against ``libtorch_cpu.so`` (434 MB on
torch 2.13). With GNU ld (bfd) the link alone takes about 0.4 s of the ~1.1 s a small kernel
costs, because bfd reads the whole symbol table of each torch library; gold takes about 0.15 s
for the same link (measured on this project's 2-core machine; ``notes/campaign.md``).

The linker changes nothing Inductor generates: the same source, the same compiler flags, the
same object code; only how the finished ``.so`` is put together. ``bench/compile_settings.py``
(setting ``gold``) checks on the known-failing corpus that every program still fails the same
way, the project's rule for any cheaper compile.

How: gcc finds ``ld`` through ``COMPILER_PATH`` before its own directories, so a worker whose
``COMPILER_PATH`` names a folder holding ``ld -> ld.gold`` links with gold, whatever torch
version it runs and without touching Inductor's flags. Rules, in order:

* a user's own ``COMPILER_PATH`` wins: it is left alone;
* ``TORCHSMITH_LINKER=default`` (or ``bfd``) keeps gcc's default linker;
* no ``ld.gold`` on ``PATH``: the default linker, silently (binutils may drop gold one day);
* gold that cannot link a small C++ library with the machine's ``g++`` (``CXX``): the default
  linker. Seen on a GPU machine whose ``g++`` was its own GCC build under ``/opt/gcc`` and whose
  gold came from the system's binutils: gold could not open that GCC's ``libstdc++.so``, and 34
  programs of a campaign were recorded as C++ compile errors of Inductor's. One test link per
  (gold, compiler) pair and process, about 0.3 s.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

#: Environment variable that picks the linker: ``gold`` (default when present) or ``default``.
LINKER_VAR = "TORCHSMITH_LINKER"


def gold_dir(gold: str) -> Path:
    """A folder holding one entry, ``ld``, a symlink to ``gold``; made once, atomically.

    One folder per gold path: a process that links with another gold (a test's stand-in) never
    re-points the link that live workers use. (It did once: a test's failing stand-in made two
    programs of a running campaign fail to link, recorded as C++ compile errors.)"""
    tag = hashlib.sha1(gold.encode()).hexdigest()[:10]
    folder = Path(tempfile.gettempdir()) / f"torchsmith-ld-gold-{os.getuid()}-{tag}"
    link = folder / "ld"
    if link.is_symlink() and os.readlink(link) == gold:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".ld.{os.getpid()}"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(gold)
    os.replace(tmp, link)  # atomic: concurrent workers never see a half-made link
    return folder


_links: dict[tuple[str, str], bool] = {}

#: The test library: it needs libstdc++, as every Inductor kernel does.
PROBE_SOURCE = (
    '#include <string>\nextern "C" int probe() { return (int)std::to_string(42).size(); }\n'
)


def gold_links(folder: Path, env: dict[str, str]) -> bool:
    """Whether the C++ compiler Inductor would call (``CXX``, else ``g++``) links a small
    shared library that needs libstdc++ with the ``ld`` in ``folder``. False when there is no
    compiler: nothing is gained by gold then."""
    name = env.get("CXX") or "g++"
    cxx = shutil.which(name, path=env.get("PATH")) or shutil.which(name)
    if cxx is None:
        return False
    key = (os.path.realpath(folder / "ld"), os.path.realpath(cxx))
    if key not in _links:
        with tempfile.TemporaryDirectory(prefix="torchsmith-ld-probe-") as tmp:
            src, lib = Path(tmp) / "probe.cpp", Path(tmp) / "probe.so"
            src.write_text(PROBE_SOURCE)
            cmd = [cxx, "-shared", "-fPIC", str(src), "-o", str(lib)]
            try:
                done = subprocess.run(
                    cmd, env={**env, "COMPILER_PATH": str(folder)}, capture_output=True, timeout=60
                )
                _links[key] = done.returncode == 0 and lib.is_file()
            except (OSError, subprocess.TimeoutExpired):
                _links[key] = False
    return _links[key]


def linker_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` with ``COMPILER_PATH`` set so gcc links with gold, when the rules above allow.

    Returns a new dict; ``env`` is not changed. Idempotent: applying it twice gives the same
    environment as once.
    """
    out = dict(env)
    choice = out.get(LINKER_VAR, "gold").strip().lower()
    if "COMPILER_PATH" in out or choice in ("default", "bfd", "ld", ""):
        return out
    if choice != "gold":
        raise ValueError(f"{LINKER_VAR}={choice!r}: expected 'gold' or 'default'")
    gold = shutil.which("ld.gold", path=out.get("PATH"))
    if gold is None:
        return out
    folder = gold_dir(os.path.realpath(gold))
    if gold_links(folder, out):
        out["COMPILER_PATH"] = str(folder)
    return out


def linker_name(env: dict[str, str]) -> str:
    """Which linker a worker with ``env`` uses: ``gold``, ``default`` or ``COMPILER_PATH=...``."""
    path = env.get("COMPILER_PATH")
    if path is None:
        return "default"
    ld = Path(path.split(os.pathsep)[0]) / "ld"
    if ld.is_symlink() and os.path.basename(os.readlink(ld)).endswith("ld.gold"):
        return "gold"
    return f"COMPILER_PATH={path}"


# -- a C++ compile error without the compiler's output ------------------------------------------
#: torch 2.6 raises ``CppCompileError`` with ``Output:\nNone`` for AOTInductor's wrapper (the
#: compiler's stderr was not captured), so every such failure read alike: one generic key for
#: different causes. The command is in the message and its files are still there (the worker
#: that failed is the one asking), so running it again gives the compiler's own words.
_NO_OUTPUT = re.compile(r"\nCommand:\n(?P<cmd>[^\n]+)\n\nOutput:\n(?:None)?\s*$")
RERUN_TIMEOUT_S = 180.0
ERROR_LINES = 6


def fill_compile_output(message: str, timeout: float = RERUN_TIMEOUT_S) -> str:
    """``message`` (a ``CppCompileError``'s) with its missing compiler output filled in: the
    first :data:`ERROR_LINES` lines of the command's output that say ``error``, got by running
    the command once more. Unchanged when the message has its output, or names no command,
    or the command now succeeds (then nothing can be said), or fails to run."""
    m = _NO_OUTPUT.search(message)
    if "C++ compile error" not in message[:200] or m is None:
        return message
    try:
        args = shlex.split(m.group("cmd"))
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, ValueError, subprocess.SubprocessError):
        return message
    lines = (done.stderr + done.stdout).splitlines()
    errors = [line for line in lines if "error" in line][:ERROR_LINES]
    if done.returncode == 0 or not errors:
        return message
    head = message[: m.start()] + f"\nCommand:\n{m.group('cmd')}\n\nOutput:\n"
    return head + "\n".join(errors) + "\n(output recovered by running the command again)"
