"""The family mix: seeded draws, notes that name the family, weights that follow bug yields."""

import pytest

from torchsmith.generate.mix import MixGenerator, family_of, parse_weights
from torchsmith.generate.protocol import GenContext


def test_weights_parse_and_reject_nonsense():
    assert parse_weights("graph=1,opinfo=2.5") == {"graph": 1.0, "opinfo": 2.5}
    assert parse_weights("graph, python") == {"graph": 1.0, "python": 1.0}
    with pytest.raises(ValueError):
        parse_weights("graph=-1")
    with pytest.raises(ValueError):
        MixGenerator(families="nosuchfamily=1")


def test_each_program_names_its_family_and_the_same_seed_gives_the_same_program():
    mix = MixGenerator(families="graph=1")
    a, b = mix.generate(7, GenContext()), mix.generate(7, GenContext())
    assert a is not None and b is not None and a.source == b.source
    assert family_of(a, "mix") == "graph" and a.notes[0] == "family=graph"
    assert family_of(None, "mix") == "mix"


def test_a_family_that_finds_bugs_gets_more_seeds():
    mix = MixGenerator(families="graph=1,mutate=1")
    base = mix.current_weights(GenContext())
    assert base == {"graph": 1.0, "mutate": 1.0}
    ctx = GenContext(yields={"graph": (100, 0), "mutate": (100, 10)})
    w = mix.current_weights(ctx)
    assert w["mutate"] > 2 * w["graph"]  # 10 bugs in 100 programs vs none
    assert MixGenerator(families="graph=1,mutate=1", adaptive=False).current_weights(ctx) == base
