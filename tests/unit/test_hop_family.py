"""The ``hop`` family without compiles: same seed same bytes, every kind drawn, canonical
programs that run in eager alike twice (the bodies' rules: no aliasing outputs, carries with
the init's strides), options refused. The compiled checks are the campaign's business."""

from __future__ import annotations

import ast
from collections import Counter

import pytest

from torchsmith.generate.hop import bodies
from torchsmith.generate.hop.generator import KINDS, HopGenerator, HopOptions, render_program
from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime
from torchsmith.oracle.compare import identical
from torchsmith.program.format import declared_settings, entry_of, is_canonical


def test_same_seed_same_bytes_and_every_kind_occurs():
    progs = [render_program(s, 0, HopOptions(), list(KINDS)) for s in range(120)]
    again = [render_program(s, 0, HopOptions(), list(KINDS)) for s in range(20)]
    assert [p.source for p in again] == [p.source for p in progs[:20]]
    kinds = Counter(n for p in progs for n in p.notes if n.startswith("hop="))
    assert set(kinds) == {f"hop={k}" for k in KINDS}, kinds
    for p in progs:
        tree = ast.parse(p.source)
        assert is_canonical(tree) and entry_of(tree, p.name) == "fn", p.source
    grads = [p for p in progs if "hop=checkpoint" in p.notes]
    assert grads and all(declared_settings(p.source)[2] == {"grad": True} for p in grads)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_runs_in_eager_alike_twice(kind):
    opts = HopOptions()
    for seed in range(6):
        p = render_program(seed, 0, opts, [kind])
        loaded = runtime.load(p, 0)
        a = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False)
        b = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False)
        assert identical(a.out, b.out), p.source


def test_bodies_keep_shapes_so_two_branches_agree():
    import random

    import torch

    rng = random.Random(0)
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    for _ in range(200):
        scope = {"torch": torch, "a": a, "b": b}
        exec("\n".join(bodies.chain(rng, ["a", "b"], rng.randint(1, 5))), scope)
        assert scope["h"].shape == a.shape and torch.isfinite(scope["h"]).all()


def test_options_are_refused_when_unknown():
    with pytest.raises(ValueError, match="kind"):
        HopGenerator(kinds="cond,nope")
    with pytest.raises(ValueError, match="max_body"):
        HopGenerator(max_body=0)
