"""The ``python`` generator family without workers: same seed same bytes, variety, canonical
programs that run in eager in-process (the worker's runtime, called directly), every fragment
reachable, the Dynamo-level shapes it exists for (call sequences with ``before_call``, graph
breaks, in-place updates of input views, Python scalars changing between calls), options and
the retry loop. tests/integration/test_pyprog_family_compile.py compiles some of them."""

from __future__ import annotations

import ast
from collections import Counter

import pytest
import torch

from torchsmith.generate.protocol import GenContext, get_generator
from torchsmith.generate.python.generator import (
    FRAGMENTS,
    PyProgOptions,
    PythonGenerator,
    features_of,
    fragments_of,
    render_program,
)
from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime
from torchsmith.oracle.compare import identical
from torchsmith.program.format import entry_of, is_canonical
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Verdict

OPTS = PyProgOptions()
NAMES = list(FRAGMENTS)


def program(seed: int, attempt: int = 0):
    return render_program(seed, attempt, OPTS, NAMES)


@pytest.fixture(scope="module")
def many():
    return [program(s) for s in range(300)]


def passes(p) -> CheckResult:
    return CheckResult(Verdict.PASS, reason="valid in eager")


def test_same_seed_same_bytes_different_seeds_differ():
    for seed in (0, 7, 123):
        assert program(seed).source == program(seed).source
        assert program(seed, 1).source != program(seed).source
        a = PythonGenerator().generate(seed, GenContext(eager_check=passes))
        b = PythonGenerator().generate(seed, GenContext(eager_check=passes))
        assert a is not None and b is not None and a.source == b.source == program(seed).source
    assert len({program(s).source for s in range(30)}) == 30


def test_fifty_seeds_give_forty_fragment_combinations(many):
    combos = {tuple(sorted(set(fragments_of(p)))) for p in many[:50]}
    assert len(combos) >= 40


def _run_eager(p) -> tuple[runtime.RunResult, runtime.RunResult]:
    loaded = runtime.load(p, 0)
    opts = CheckOptions()
    first = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
    again = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
    return first, again


def test_programs_are_canonical_and_run_in_eager(many):
    ok = 0
    sample = many[:40]
    for p in sample:
        tree = ast.parse(p.source)
        assert is_canonical(tree) and entry_of(tree, p.name) == p.model
        assert program_from_source(p.source, name=p.name, scripts=False).model == p.model
        assert p.origin == "generated" and p.notes[0] == "family=python"
        try:
            first, again = _run_eager(p)
        except Exception:
            continue
        # before_call and the globals reset make every run start alike: eager twice agrees
        assert identical(first.out, again.out), p.source
        ok += 1
    assert ok >= 0.97 * len(sample)


def test_every_fragment_is_used_and_the_dynamo_shapes_occur(many):
    used = Counter(f for p in many for f in fragments_of(p))
    assert set(used) == set(FRAGMENTS), set(FRAGMENTS) - set(used)
    feats = Counter(f for p in many for f in features_of(p))
    calls_and_before = [
        p for p in many if "def get_calls" in p.source and "def before_call" in p.source
    ]
    assert calls_and_before
    assert any("torch._dynamo.graph_break()" in p.source for p in many)
    assert feats["graph_break"] and feats["inplace_input_view"] and feats["module"]
    assert feats["seq:scalar"] and feats["seq:type"] and feats["seq:shape"]


def test_a_python_scalar_argument_changes_between_calls(many):
    changing = [p for p in many if "seq:scalar" in features_of(p)]
    found = False
    for p in changing[:5]:
        loaded = runtime.load(p, 0)
        assert loaded.sequence
        scalars = [
            [a for a in call.args if isinstance(a, int | float | bool | str | torch.dtype)]
            for call in loaded.calls
        ]
        found = found or len({repr(s) for s in scalars}) > 1
    assert found


def test_in_place_update_of_an_input_view_is_seen_by_the_runtime(many):
    progs = [p for p in many if "inplace_input_view" in features_of(p)]
    assert progs
    mutated = 0
    for p in progs[:5]:
        first, _ = _run_eager(p)
        mutated += any(m is not None for m in first.mutated)
    assert mutated >= 4


def test_options_filter_and_registry():
    gen = get_generator("python", fragments="graph_break,range_loop", max_fragments=3)
    assert isinstance(gen, PythonGenerator)
    for seed in range(10):
        p = next(gen.candidates(seed))
        assert set(fragments_of(p)) <= {"graph_break", "range_loop"}
        assert 1 <= len(fragments_of(p)) <= 3
    mods = PythonGenerator(fragments=("module_dict",))
    assert all(next(mods.candidates(s)).model == "Model" for s in range(5))
    with pytest.raises(ValueError, match="unknown fragment"):
        PythonGenerator(fragments="nope")
    seqs = PythonGenerator(sequence_prob="0")
    assert all("get_calls" not in next(seqs.candidates(s)).source for s in range(10))


def test_invalid_candidates_are_retried_then_given_up():
    seen: list[str] = []

    def fails_twice(p) -> CheckResult:
        seen.append(p.source)
        ok = len(seen) > 2
        return CheckResult(Verdict.PASS if ok else Verdict.INVALID, reason="stub")

    gen = PythonGenerator(max_tries=4)
    p = gen.generate(3, GenContext(eager_check=fails_twice))
    assert p is not None and p.source == seen[-1] and len(set(seen)) == 3
    st = gen.stats
    assert (st.programs, st.tries, st.valid, st.produced) == (1, 3, 1, 1)
    assert st.verdicts == Counter({"invalid": 2, "pass": 1})
    assert sum(st.fragments_valid.values()) >= 1 and st.to_dict()["valid_rate"] == round(1 / 3, 4)

    def never(p) -> CheckResult:
        return CheckResult(Verdict.INVALID, reason="stub")

    gen = PythonGenerator(max_tries=2)
    assert gen.generate(5, GenContext(eager_check=never)) is None
    assert gen.stats.tries == 2 and gen.stats.produced == 0


def test_every_alias_has_an_unaliased_stand_in_of_its_shape():
    """``alias_inputs`` passes a view of ``x`` beside it, or in some calls of a sequence a
    fresh tensor of the view's shape (a recompile, or a stale graph: #139789); each stand-in
    has exactly the view's shape, for ranks 2 to 4."""
    import random

    import torch

    from torchsmith.generate.python.builder import Builder
    from torchsmith.generate.python.frags_effects import ALIASES, _unaliased

    for rest in ((3,), (1, 4), (2, 3, 5)):
        b = Builder(
            random.Random(0), module=False, batch=[4], rest=rest, dtypes=["float32"], input_seed=0
        )
        x = torch.zeros(4, *rest)
        g = torch.Generator().manual_seed(0)
        for alias in ALIASES:
            want = tuple(eval(alias, {"x": x}).shape)
            got = tuple(eval(_unaliased(b, alias, 0), {"torch": torch, "g": g}).shape)
            assert got == want, (alias, rest)


def _forms_drawn(gen, marks) -> set[str]:
    """The ``marks`` found in 40 programs of ``gen``, each run in eager twice alike."""
    seen: set[str] = set()
    for seed in range(40):
        p = next(gen.candidates(seed))
        seen |= {m for m in marks if m in p.source}
        first, again = _run_eager(p)
        assert identical(first.out, again.out), p.source
    return seen


def test_builtin_semantics_draws_every_variant_and_each_runs_in_eager():
    """The fragment holding the fourteenth and fifteenth passes' Dynamo finds: all eight forms
    are drawn within 40 seeds, and every program runs in eager twice alike (its imports made,
    its values a function of literals)."""
    gen = get_generator("python", fragments="builtin_semantics")
    marks = (
        "int.__add__",
        "float.__round__",
        ".__iadd__((",
        ".count(",
        ".copy().popitem(last=False)",
        ".keys() &",
        "traceback.extract_tb",
        "struct.unpack",
    )
    assert _forms_drawn(gen, marks) == set(marks)


def test_a_fragment_cannot_need_a_module_the_renderer_does_not_import():
    import random

    from torchsmith.generate.python.builder import Builder

    b = Builder(
        random.Random(0), module=False, batch=[4], rest=(3,), dtypes=["float32"], input_seed=0
    )
    b.need("struct", "traceback")
    with pytest.raises(ValueError, match="IMPORT_ORDER"):
        b.need("socket")


def test_size_arithmetic_draws_every_form_and_each_runs_in_eager():
    """Arithmetic on sizes (the fifteenth pass's symbolic-shape finds): every form, the guarded
    division by a size difference included, is drawn within 40 seeds and runs in eager alike."""
    from torchsmith.generate.python.frags_runtime import SIZE_ARITHMETIC

    gen = get_generator("python", fragments="size_arithmetic")
    marks = [line.removeprefix("h = h + ") for line in SIZE_ARITHMETIC]
    marks.append("except ZeroDivisionError:")
    assert _forms_drawn(gen, marks) == set(marks)
