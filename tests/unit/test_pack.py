"""Packing: K generated programs as one, each part as it is alone; failures attributed."""

from torchsmith.campaign.pack import pack, packable, parts_of
from torchsmith.generate.graph import GenOptions, generate
from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime
from torchsmith.oracle.compare import identical
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Phase, Verdict


def _run(program):
    loaded = runtime.load(program, 0)
    return runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False).out


def test_each_part_of_a_pack_computes_what_it_computes_alone():
    parts = [generate(s, GenOptions(max_nodes=5)) for s in (3, 4, 5, 6)]
    assert all(packable(p) for p in parts)
    packed = pack(parts)
    assert packed.model == "Model" and packed.notes[0].startswith("packed=gen_3,gen_4")
    out = _run(packed)
    assert len(out) == 4
    for i, part in enumerate(parts):
        assert identical(out[i], _run(part)), part.name


def test_only_plain_generated_programs_are_packed():
    plain = generate(1, GenOptions())
    assert packable(plain)
    assert not packable(program_from_source(plain.source))  # a user's file, not generated
    fn = program_from_source(
        "import torch\ndef fn(x):\n    return x + 1\ndef get_inputs():\n    return [torch.ones(2)]\n"
    )
    assert not packable(fn)
    declared = plain.source + "\ncompile_kwargs = {'dynamic': True}\n"
    assert not packable(type(plain)(source=declared, origin="generated"))


def test_a_wrong_value_names_its_parts_anything_else_suspects_every_part():
    res = CheckResult(Verdict.MISMATCH, Phase.COMPARE,
                      evidence={"output": "out[2][0]", "failing_outputs": ["out[2][0]", "out[0]"]})  # fmt: skip
    assert parts_of(res, 4) == {0, 2}
    assert parts_of(CheckResult(Verdict.CRASH, Phase.COMPILED), 4) is None
    bad_path = CheckResult(Verdict.MISMATCH, Phase.COMPARE, evidence={"output": "input[0]"})
    assert parts_of(bad_path, 4) is None
