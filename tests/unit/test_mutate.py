"""Mutation generator without workers: determinism per seed, every operator applies and keeps the
program readable, invalid mutants are retried (bounded), options and corpus loading.
tests/integration/test_llm_mutate.py checks that the mutants are valid in a real worker."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from torchsmith.generate.llm.prompts import default_corpus, load_corpus
from torchsmith.generate.mutate.generator import MutationGenerator, mutate_source
from torchsmith.generate.mutate.operators import MUTATORS
from torchsmith.generate.mutate.sites import Sites, anchors
from torchsmith.generate.protocol import GenContext, get_generator
from torchsmith.program.format import Program
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Phase, Verdict

CONV = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)
        self.act = nn.ReLU()

    def forward(self, x, y):
        h = self.act(self.bn(self.conv(x)))
        s = torch.sum(h, dim=1, keepdim=True)
        z = F.gelu(y) + torch.sigmoid(y)
        return s * 2.0, z.relu()


def get_init_inputs():
    return [4]


def get_inputs():
    return [torch.randn(2, 3, 8, 8), torch.randn(4, 6)]
"""


def passes(program: Program) -> CheckResult:
    return CheckResult(Verdict.PASS, reason="valid in eager")


@pytest.fixture(scope="module")
def gen() -> MutationGenerator:
    return MutationGenerator(generated=8)


def test_same_seed_same_mutants_and_program(gen):
    other = MutationGenerator(generated=8)
    for seed in (0, 7, 123):
        a = [p.source for _, p in zip(range(3), gen.candidates(seed))]
        b = [p.source for _, p in zip(range(3), other.candidates(seed))]
        assert a == b and len(a) == 3 and len(set(a)) == 3
        pa, pb = (
            gen.generate(seed, GenContext(eager_check=passes)),
            other.generate(seed, GenContext(eager_check=passes)),
        )
        assert pa is not None and pb is not None and pa.source == pb.source
    firsts = {next(gen.candidates(s)).source for s in range(20)}
    assert len(firsts) >= 18  # different seeds, different mutants


def test_mutants_are_readable_canonical_programs(gen):
    seen = 0
    for seed in range(40):
        for _, m in zip(range(2), gen.candidates(seed)):
            p = program_from_source(m.source, name=m.name)
            assert p.origin == "canonical" and m.origin == "mutated" and m.name == f"mut_{seed}"
            assert m.source.startswith("# Mutated by torchsmith mutate") and len(m.notes) >= 2
            seen += 1
    assert seen == 80  # two mutants for every seed: the loop cannot pass by checking nothing


@pytest.mark.parametrize("name", sorted(MUTATORS))
def test_each_operator_applies_and_changes_the_program(name):
    base = Program(source=CONV, name="conv")
    changed = 0
    for seed in range(12):
        made = mutate_source(base, random.Random(seed), [name], chain=1)
        assert made is not None, f"{name} did not apply to the conv program"
        source, done = made
        assert done and all(d.startswith(f"{name}:") for d in done)
        tree = ast.parse(source)
        Sites.of(tree, "Model")  # still has the model
        changed += ast.dump(tree) != ast.dump(ast.parse(CONV))
    assert changed >= 10


def test_operator_markers():
    base = Program(source=CONV, name="conv")

    def text(op: str, seed: int = 0) -> str:
        made = mutate_source(base, random.Random(seed), [op], chain=1)
        assert made is not None
        return made[0] + "\n".join(made[1])

    assert any("ts_noncontig" in text("layout", s) or "channels_last" in text("layout", s)
               for s in range(6))  # fmt: skip
    assert any("ModuleList" in text("layer_loop", s) or "range(2)" in text("layer_loop", s)
               for s in range(6))  # fmt: skip
    assert any("self.ts_state" in text("attr_mutation", s) for s in range(3))
    assert any("ts_box" in text("containers", s) for s in range(3))
    gb = [text("graph_break", s) for s in range(12)]
    assert any("graph_break()" in t for t in gb) and any(".sum() > 0" in t for t in gb)
    inplace = [text("inplace", s) for s in range(20)]
    assert any("inplace=True" in t for t in inplace) and any("_(" in t for t in inplace)
    kws = [text("keywords", s) for s in range(20)]
    assert any("torch.add(F.gelu(y), torch.sigmoid(y), alpha=" in t for t in kws)
    assert any("keepdim=True, dtype=torch.float64)" in t for t in kws)


def test_anchors_cover_parameters_and_assignments():
    s = Sites.of(ast.parse(CONV), "Model")
    assert [a.name for a in anchors(s)] == ["x", "y", "h", "s", "z"]


def test_invalid_mutants_are_retried_then_given_up(gen):
    calls: list[str] = []

    def third_is_valid(p: Program) -> CheckResult:
        calls.append(p.source)
        if len(calls) < 3:
            return CheckResult(Verdict.INVALID, Phase.EAGER, "`torch.mm` got ...")
        return CheckResult(Verdict.PASS)

    before = gen.stats.checked
    p = gen.generate(5, GenContext(eager_check=third_is_valid))
    expected = [m.source for _, m in zip(range(3), gen.candidates(5))]
    assert p is not None and calls == expected and p.source == expected[2]
    assert gen.stats.checked - before == 3
    never = MutationGenerator(generated=8, max_tries=4)
    n = []
    assert never.generate(5, GenContext(eager_check=lambda p: n.append(1) or CheckResult(
        Verdict.INVALID))) is None  # fmt: skip
    assert len(n) == 4 and never.stats.valid == 0 and never.stats.verdicts["invalid"] == 4


def test_options_from_cli_strings_and_corpus(tmp_path: Path):
    (tmp_path / "user.py").write_text(CONV)
    finding = tmp_path / "findings" / "sig-abc"
    finding.mkdir(parents=True)
    (finding / "program.py").write_text(CONV.replace("2.0", "3.0"))
    (finding / "repro.py").write_text("print('not a program')\n")
    (tmp_path / "broken.py").write_text("def (:\n")
    programs, skipped = load_corpus(tmp_path)
    assert sorted(p.name for p in programs) == ["sig-abc", "user"]
    assert len(skipped) == 1 and "syntax error" in skipped[0]
    g = get_generator("mutate", corpus=str(tmp_path), operators="swap_op,inplace", max_tries="3")
    assert isinstance(g, MutationGenerator)
    assert g.operators == ["swap_op", "inplace"] and g.opts.max_tries == 3
    m = next(g.candidates(0))
    assert m.notes[0] in {"base=user", "base=sig-abc"}
    assert all(d.split(":")[0] in {"swap_op", "inplace"} for d in m.notes[1:])
    with pytest.raises(ValueError, match="unknown operator"):
        MutationGenerator(operators="frobnicate")
    with pytest.raises(ValueError, match="no usable program"):
        MutationGenerator(corpus=str(tmp_path / "nothing-here"))


def test_default_corpus_has_examples_and_generated_programs():
    progs = default_corpus(generated=3)
    names = [p.name for p in progs]
    assert "linear_relu" in names and "s2_mm_invalid" not in names
    assert sum(n.startswith("gen_") for n in names) == 3
