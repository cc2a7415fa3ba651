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


# -- options are refused, never ignored ------------------------------------------------------------
def test_an_unknown_mix_option_or_family_is_refused_naming_the_valid_ones():
    from torchsmith.generate.protocol import validate_options

    with pytest.raises(ValueError, match="unknown option family='export'.*graph"):
        validate_options("mix", {"family": "export"})
    with pytest.raises(ValueError, match="unknown families nosuch; known: .*opinfo"):
        validate_options("mix", {"families": "graph,nosuch"})
    with pytest.raises(ValueError, match="unknown option"):
        MixGenerator(families="graph", family="export")
    validate_options("mix", {"families": "graph=1,python=2", "adaptive": "false"})


def test_a_family_option_is_checked_by_the_one_parser():
    from torchsmith.generate.protocol import typed_options, validate_options

    with pytest.raises(ValueError, match="unknown option.*bogus; known: .*max_nodes"):
        validate_options("graph", {"bogus": 1})
    with pytest.raises(ValueError, match="expected int"):
        validate_options("mix", {"families": "graph", "graph": {"max_nodes": "many"}})
    with pytest.raises(ValueError, match="opinfo generator: unknown option"):
        validate_options("opinfo", {"nope": 1})
    from torchsmith.generate.graph.options import GenOptions

    opts = typed_options(GenOptions, {"max-nodes": "5", "dtypes": "float32, int64"}, "graph")
    assert opts.max_nodes == 5 and opts.dtypes == ("float32", "int64")


def test_fuzz_refuses_an_unknown_generator_option_before_making_a_folder(tmp_path):
    from click.testing import CliRunner

    from torchsmith.cli import main

    out = tmp_path / "c"
    res = CliRunner().invoke(
        main, ["fuzz", "--gen-option", "family=export", "--count", "1", "--out", str(out)]
    )
    assert res.exit_code == 2, res.output
    assert "unknown option family='export'" in res.output
    assert not out.exists()
