import json

import pytest

from torchsmith.finding import finding_id, list_findings, read_finding, update_meta, write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict

SRC = """import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn(3)]
"""


def _result() -> CheckResult:
    opts = CheckOptions(config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "runtime_error"})
    return CheckResult(
        Verdict.CRASH,
        Phase.COMPILED,
        "compiled raised RuntimeError: unhandled error",
        {"exc_type": "RuntimeError", "traceback_tail": "Traceback ...\nRuntimeError: boom"},
        Stage.INDUCTOR,
        {"eager": "pass", "inductor": "crash"},
        program="p",
        options=opts.to_dict(),
        log_tail="worker said hi",
    )


def test_write_then_read_round_trips(tmp_path):
    program = program_from_source(SRC, name="p")
    result = _result()
    f = write_finding(tmp_path, program, result, signature="sig-abc", generator="graph", seed=7)
    assert f.folder.name == finding_id(program, result)
    assert f.folder.name.startswith("crash-inductor-")
    for name in ("meta.json", "program.py", "repro.py", "log.txt"):
        assert (f.folder / name).exists()
    meta = json.loads((f.folder / "meta.json").read_text())
    assert meta["signature"] == "sig-abc" and meta["seed"] == 7 and meta["versions"]["torch"]
    back = read_finding(f.folder)
    assert back.program.source == SRC and back.result.verdict is Verdict.CRASH
    assert back.options.config == result.options["config"]
    assert "inject_relu_bug_TESTING_ONLY = 'runtime_error'" in (f.folder / "repro.py").read_text()
    assert "RuntimeError: boom" in (f.folder / "log.txt").read_text()


def test_rewriting_is_idempotent_and_listing_sees_one(tmp_path):
    program = program_from_source(SRC, name="p")
    write_finding(tmp_path, program, _result())
    f = write_finding(tmp_path, program, _result())
    update_meta(f, reduced_from="x")
    found = list_findings(tmp_path)
    assert len(found) == 1 and found[0].meta["reduced_from"] == "x"
    assert not list(tmp_path.glob("*/*.tmp"))


def test_read_finding_rejects_a_non_finding(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a finding folder"):
        read_finding(tmp_path)
    assert list_findings(tmp_path / "missing") == []


def test_a_finding_records_the_torch_that_gave_the_verdict(tmp_path):
    import torch

    program = program_from_source(SRC, name="p")
    other = CheckResult(Verdict.CRASH, Phase.COMPILED, "x", stage=Stage.INDUCTOR, torch="2.6.0+cpu")
    meta = write_finding(tmp_path, program, other).meta
    assert meta["versions"]["torch"] == "2.6.0+cpu"
    assert meta["versions"]["driver_torch"] == torch.__version__
    same = CheckResult(Verdict.CRASH, Phase.COMPILED, "x", stage=Stage.INDUCTOR)
    meta = write_finding(tmp_path / "b", program, same).meta
    assert meta["versions"]["torch"] == torch.__version__ and "driver_torch" not in meta["versions"]


def test_finding_meta_is_typed_and_tolerates_missing_and_unknown_keys(tmp_path):
    from torchsmith.finding import FindingMeta

    info = FindingMeta.of({"id": "x", "seed": 3, "versions": {"torch": "2.6.0"}, "new_key": 1})
    assert info.seed == 3 and info.torch == "2.6.0" and info.reduced_to is None
    assert FindingMeta.of({"seed": None}).seed is None and FindingMeta().torch is None
