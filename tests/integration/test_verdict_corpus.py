"""The verdicts on every program in ``tests/data`` (and the injected faults) stay as recorded.

``tests/data/verdicts.json`` was written by the code before the redesign of issue 11 (judge in
``oracle/``, one protocol owner, one loader); refactors must not change a verdict or a stage.
When a change is meant to change one, update the file in the same commit and say why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchsmith.check import check_files
from torchsmith.options import CheckOptions

from .conftest import DATA, EXAMPLES

GOLDEN = json.loads((DATA / "verdicts.json").read_text())
RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"


def _verdicts(paths: list[Path], options: CheckOptions, label=None) -> dict[str, dict]:
    out = {}
    for path, res, err in check_files(paths, options):
        key = f"{label}:{path.name}" if label else str(path.relative_to(DATA))
        out[key] = (
            {"error": err}
            if err
            else {"verdict": res.verdict.value, "stage": res.stage.value if res.stage else None}
        )
    return out


#: Folders whose programs another test checks against this file's verdicts, so the corpus run
#: here leaves them out (the suite's time): ``crashy`` (test_crash_safety.py, the verdicts and
#: phases of a segfault, a hang, a runaway allocation, exits), ``false_alarms``
#: (test_false_alarms.py, each program's recorded verdict exactly).
CHECKED_ELSEWHERE = ("crashy", "false_alarms")


def _data_paths() -> list[Path]:
    return sorted(p for p in DATA.rglob("*.py"))


def _corpus_paths() -> list[Path]:
    return [p for p in _data_paths() if p.relative_to(DATA).parts[0] not in CHECKED_ELSEWHERE]


def test_the_golden_file_lists_every_data_program():
    assert {str(p.relative_to(DATA)) for p in _data_paths()} == set(GOLDEN["data"])


def _differences(got: dict[str, dict], want: dict[str, dict]) -> dict[str, tuple]:
    """Programs whose verdict or stage is not the recorded one. An entry may list ``also``:
    verdicts of the same category that another CPU's kernels give (with ``why``), e.g. a
    float32 AdamW drift that AVX-512 code shows and AVX2 code does not."""
    out = {}
    for key, w in want.items():
        g = got.get(key, {})
        ok = (
            "error" not in g
            and g.get("stage") == w["stage"]
            and g.get("verdict") in (w["verdict"], *w.get("also", ()))
        )
        if not ok:
            out[key] = (g, w)
    return out


@pytest.mark.parametrize("half", [0, 1])
def test_every_data_program_keeps_its_verdict_and_stage(half):
    """In two halves (alternate files), so the suite's two workers share the corpus."""
    paths = _corpus_paths()[half::2]
    got = _verdicts(paths, CheckOptions(timeout=60.0, memory_mb=2048))
    want = {k: v for k, v in GOLDEN["data"].items() if k in got}
    assert len(got) == len(paths) and set(got) == set(want)
    assert _differences(got, want) == {}


def test_examples_and_injected_faults_keep_their_verdict_and_stage():
    got: dict[str, dict] = {}
    base = CheckOptions(timeout=60.0, memory_mb=2048)
    examples = sorted(p for p in EXAMPLES.glob("*.py") if p.name != "__init__.py")
    got.update(_verdicts(examples, base, "examples"))
    for fault in ("compile_error", "runtime_error", "accuracy"):
        opts = base.replace(config={RELU_BUG: fault})
        got.update(_verdicts([EXAMPLES / "linear_relu.py"], opts, f"relu-{fault}"))
    opts = base.replace(
        fullgraph=True, config={"dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY": True}
    )
    (res,) = _verdicts([DATA / "programs" / "build_set.py"], opts, "b").values()
    got["build_set-fullgraph"] = res
    assert got == GOLDEN["extra"]
