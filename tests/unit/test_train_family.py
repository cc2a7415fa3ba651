"""The ``train`` family without workers or compiles: same seed same bytes, canonical programs,
every model template and optimizer reached, steps that really train (eager, in-process: the
loss moves, parameters change, two eager runs agree), compiled autograd declared in about half,
options refused when unknown. tests/integration/test_train_family_compile.py compiles some."""

from __future__ import annotations

import ast
from collections import Counter

import pytest
import torch

from torchsmith.generate.protocol import GenContext, validate_options
from torchsmith.generate.train.generator import TrainGenerator, render_program
from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime
from torchsmith.oracle.compare import identical
from torchsmith.program.format import declared_settings, entry_of, is_canonical
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Verdict


def first(gen: TrainGenerator, seed: int):
    return next(iter(gen.candidates(seed)))


@pytest.fixture(scope="module")
def many():
    gen = TrainGenerator()
    return [first(gen, s) for s in range(40)]


def notes_of(p) -> dict[str, str]:
    return dict(n.split("=", 1) for n in p.notes if "=" in n)


def test_same_seed_same_bytes_and_the_mix(many):
    assert [first(TrainGenerator(), s).source for s in range(8)] == [p.source for p in many[:8]]
    assert len({p.source for p in many}) == len(many)
    notes = [notes_of(p) for p in many]
    assert set(Counter(n["model"] for n in notes)) == {"mlp", "conv", "norm", "embedding", "hop"}
    assert {"sgd", "adam", "adamw"} <= {n["opt"] for n in notes}
    ca = sum(n["compiled_autograd"] == "True" for n in notes)
    assert 10 <= ca <= 30, ca
    assert any(n["calls"] == "2" for n in notes) and any(n["steps"] == "3" for n in notes)


def test_programs_are_canonical_and_declare_compiled_autograd(many):
    for p in many:
        tree = ast.parse(p.source)
        assert is_canonical(tree) and entry_of(tree, p.name) == "Model", p.source
        assert program_from_source(p.source, name=p.name, scripts=False).model == "Model"
        _, config, _ = declared_settings(p.source)
        ca = notes_of(p)["compiled_autograd"] == "True"
        config.pop("dynamo.capture_scalar_outputs", None)  # the hop model's scan and map
        assert config == ({"dynamo.compiled_autograd": True} if ca else {}), p.source


def test_the_hop_model_routes_its_hidden_layer_through_each_higher_order_op():
    from torchsmith.generate.train.generator import TrainOptions, render_program
    from torchsmith.generate.train.templates import ACTS, HOP_ROUTES

    names = {"models": ["hop"], "optimizers": ["sgd", "adam"], "acts": list(ACTS)}
    programs = [render_program(s, 0, TrainOptions(), names) for s in range(80)]
    routes = Counter(notes_of(p)["route"] for p in programs)
    assert set(routes) == set(HOP_ROUTES), routes
    calls = {
        "cond": "torch.cond(",
        "checkpoint": "checkpoint.checkpoint(",
        "region": "@torch.compiler.nested_compile_region",
        "scan": "= scan(step,",
        "map": "hop_map(",
    }
    captured = 0
    for p in programs:
        route = notes_of(p)["route"]
        assert calls[route] in p.source, p.source
        _, config, _ = declared_settings(p.source)
        captured += route in ("scan", "map") and config.get("dynamo.capture_scalar_outputs", False)
        assert route in ("scan", "map") or "dynamo.capture_scalar_outputs" not in config
    assert captured >= 0.5 * (routes["scan"] + routes["map"])


def test_a_step_trains_and_two_eager_runs_agree(many):
    for p in many[:6]:
        loaded = runtime.load(p, 0)
        opts = CheckOptions()
        a = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
        b = runtime.run_model(loaded, opts, backend=None, dtype=None, grad=False)
        assert identical(a.out, b.out), p.source
        out = a.out[-1] if loaded.sequence else a.out
        losses, params, grads = out
        assert losses.numel() == int(notes_of(p)["steps"]) and torch.isfinite(losses).all()
        assert len(params) == len(grads) >= 2
        fresh = loaded.target()
        before = [q.detach() for q in fresh.net.parameters()]
        assert any(not torch.equal(x, y) for x, y in zip(before, params, strict=True)), p.source
        f64 = runtime.run_model(loaded, opts, backend=None, dtype=torch.float64, grad=False)
        ref = f64.out[-1] if loaded.sequence else f64.out
        assert ref[1][0].dtype == torch.float64  # the optimizer steps the cast parameters


def test_options_filter_and_are_refused_when_unknown():
    gen = TrainGenerator(models="conv", optimizers="sgd", acts="relu")
    for s in range(5):
        n = notes_of(first(gen, s))
        assert (n["model"], n["opt"], n["act"]) == ("conv", "sgd", "relu")
    with pytest.raises(ValueError, match="train generator: unknown option.*bogus"):
        validate_options("train", {"bogus": 1})
    with pytest.raises(ValueError, match="unknown model"):
        TrainGenerator(models="transformer")
    with pytest.raises(ValueError, match="unknown optimizer"):
        TrainGenerator(optimizers="lbfgs")
    with pytest.raises(ValueError, match="max_steps"):
        TrainGenerator(max_steps=0)
    never = TrainGenerator(compiled_autograd=0.0)
    body = render_program(1, 0, never.opts, never.names).source.split("import torch", 1)[1]
    assert "compiled_autograd" not in body
    validate_options("mix", {"families": "graph=1,train=1", "train": {"models": "mlp"}})


def test_invalid_candidates_are_retried():
    seen: list[str] = []

    def fails_once(p) -> CheckResult:
        seen.append(p.source)
        return CheckResult(Verdict.PASS if len(seen) > 1 else Verdict.INVALID, reason="stub")

    gen = TrainGenerator(max_tries=3)
    p = gen.generate(2, GenContext(eager_check=fails_once))
    assert p is not None and p.source == seen[-1] and len(set(seen)) == 2
    assert (gen.stats.tries, gen.stats.valid, gen.stats.produced) == (2, 1, 1)
