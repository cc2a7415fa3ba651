"""Families whose imports fail are left out when a campaign starts (generate.availability).

``fake_python`` is a real interpreter: a wrapper that runs this Python with a folder first on
its path whose ``expecttest.py`` (or ``torch.py``) raises ImportError, as a ``--python`` venv
without that package does. Whole campaigns against it: ``tests/integration/test_availability_python.py``.
"""

import sys
from pathlib import Path

import pytest

from torchsmith.generate import availability


def fake_python(folder: Path, missing: tuple[str, ...]) -> str:
    """An interpreter that is this Python without the modules ``missing``."""
    shadow = folder / "shadow"
    shadow.mkdir(parents=True)
    for name in missing:
        (shadow / f"{name}.py").write_text(f"raise ImportError('no {name} in this interpreter')\n")
    exe = folder / "python"
    exe.write_text(
        f'#!/bin/sh\nPYTHONPATH="{shadow}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" "$@"\n'
    )
    exe.chmod(0o755)
    return str(exe)


def test_the_probe_runs_in_the_given_interpreter(tmp_path):
    python = fake_python(tmp_path, ("expecttest",))
    failed = availability.import_in(python, ["expecttest", "json"])
    assert set(failed) == {"expecttest"} and "no expecttest" in failed["expecttest"]
    assert availability.import_in(sys.executable, ["json"]) == {}
    assert availability.import_in(str(tmp_path / "no-such-python"), ["json"]) is None


def test_without_drops_families_of_a_mix_and_refuses_an_empty_one():
    opts = {"families": "graph=1,opinfo=2", "other": 3}
    assert availability.without("mix", opts, {}) == opts
    left = availability.without("mix", opts, {"opinfo": "needs expecttest"})
    assert left == {"families": {"graph": 1.0}, "other": 3}
    with pytest.raises(ValueError, match="no family of the mix can run here: graph: x"):
        availability.without("mix", {"families": "graph=1"}, {"graph": "x"})
    with pytest.raises(ValueError, match="generator opinfo cannot run here"):
        availability.without("opinfo", {}, {"opinfo": "needs expecttest"})


def test_opinfo_declares_what_op_db_imports():
    here, _ = availability.declared("opinfo")
    assert "expecttest" in here and "torch.testing._internal.common_methods_invocations" in here
