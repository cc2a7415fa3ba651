"""The ``opinfo`` generator family: deterministic, canonical, runnable, and it delivers the
argument variations it promises (non-float dtypes, scalars and dtypes as arguments, 0-dim and
size-1 tensors, dynamic-shape call sequences, gradient checks).

Rendering is pure, so everything here runs without a worker: the generated programs are run in
this test process (tests may run program code; the tool itself never does).
"""

from __future__ import annotations

import ast
import itertools
import random
import re
import types

import pytest
import torch

from torchsmith.generate.opinfo.generator import OpInfoGenerator, load_catalog
from torchsmith.generate.opinfo.render import CallForm, OutInfo, ProgramSpec, render_program
from torchsmith.generate.opinfo.values import Unrenderable, float_literal, literal, tensor_expr
from torchsmith.generate.protocol import GenContext, get_generator
from torchsmith.program.format import declared_settings, entry_of, is_canonical
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Phase, Verdict

SEEDS = range(60)


@pytest.fixture(scope="module")
def gen() -> OpInfoGenerator:
    g = OpInfoGenerator()
    assert len(g.catalog) > 400  # op_db imported once for the module
    return g


@pytest.fixture(scope="module")
def programs(gen):
    """The first candidate of each seed (what ``generate`` checks first)."""
    return {seed: next(gen.candidates(seed)) for seed in SEEDS}


def _run(source: str) -> tuple[list[list], dict, list]:
    """Execute a program here: its argument lists, kwargs and the outputs of ``fn``."""
    ns: dict = {"__name__": "opinfo_program"}
    exec(compile(source, "<opinfo>", "exec"), ns)
    calls = ns["get_calls"]() if "get_calls" in ns else [ns["get_inputs"]()]
    kwargs = ns["get_kwargs"]() if "get_kwargs" in ns else {}
    return calls, kwargs, [ns["fn"](*args, **kwargs) for args in calls]


# -- determinism ---------------------------------------------------------------------------------
def test_same_seed_same_source(gen, programs):
    other = OpInfoGenerator()
    for seed in (0, 7, 31):
        assert next(gen.candidates(seed)).source == programs[seed].source
        assert next(other.candidates(seed)).source == programs[seed].source
    # a later candidate of a seed is reproducible too
    assert [p.source for p in itertools.islice(gen.candidates(3), 3)] == [
        p.source for p in itertools.islice(other.candidates(3), 3)
    ]


def test_different_seeds_pick_different_ops(programs):
    ops = [dict(n.split("=", 1) for n in programs[s].notes)["op"] for s in range(50)]
    assert len(set(ops)) >= 40, ops


# -- canonical and runnable ----------------------------------------------------------------------
def test_programs_are_canonical(programs):
    for seed, prog in programs.items():
        tree = ast.parse(prog.source)
        assert is_canonical(tree), seed
        assert entry_of(tree, "opinfo") == "fn", seed
        loaded = program_from_source(prog.source, name=prog.name, scripts=False)
        assert loaded.origin == "canonical" and loaded.model == "fn"
        assert prog.model == "fn" and prog.origin == "generated"


def test_programs_run_in_eager(programs):
    failures = []
    for seed in range(30):
        try:
            _run(programs[seed].source)
        except Exception as e:  # the eager check filters these in the real pipeline
            failures.append((seed, programs[seed].notes, f"{type(e).__name__}: {e}"[:200]))
    assert len(failures) <= 1, failures  # >= 95 % of 30 seeds


# -- what the family promises ---------------------------------------------------------------------
def test_family_delivers_argument_variations(programs):
    found: dict[str, int] = {}
    for seed, prog in programs.items():
        calls, kwargs, _ = _run(prog.source)
        values = [v for args in calls for v in args]
        tensors = [v for v in values if isinstance(v, torch.Tensor)]
        for v in values:
            if isinstance(v, list | tuple):
                tensors += [t for t in v if isinstance(t, torch.Tensor)]
        if any(not t.dtype.is_floating_point for t in tensors):
            found.setdefault("non_float_input", seed)
        scalars = [
            v
            for v in [*values, *kwargs.values()]
            if isinstance(v, bool | int | float | torch.dtype)
        ]
        if scalars:
            found.setdefault("scalar_or_dtype_argument", seed)
        if any(t.dim() == 0 or 1 in t.shape for t in tensors):
            found.setdefault("zero_dim_or_size_one", seed)
        if len(calls) > 1:
            shapes = {
                tuple(tuple(v.shape) for v in args if isinstance(v, torch.Tensor)) for args in calls
            }
            if len(shapes) > 1:
                found.setdefault("dynamic_calls", seed)
        _, _, check = declared_settings(prog.source)
        if check.get("grad") is True:
            found.setdefault("grad", seed)
        if any(not t.is_contiguous() for t in tensors):
            found.setdefault("non_contiguous", seed)
    missing = {
        "non_float_input",
        "scalar_or_dtype_argument",
        "zero_dim_or_size_one",
        "dynamic_calls",
        "grad",
        "non_contiguous",
    } - set(found)
    assert not missing, (missing, found)


def test_modes_and_filters():
    g = get_generator("opinfo", ops="add,mul", mode="dynamic", dtypes="float32")
    assert {e.info.name for e in g.catalog} == {"add", "mul"}
    prog = next(g.candidates(1))
    assert "def get_calls():" in prog.source
    assert "dtype: float32" in prog.source
    grad = get_generator("opinfo", ops="sin", mode="grad")
    src = next(grad.candidates(2)).source
    assert declared_settings(src)[2] == {"grad": True}
    with pytest.raises(ValueError, match="unknown option"):
        get_generator("opinfo", colour="red")
    with pytest.raises(ValueError, match="mode"):
        get_generator("opinfo", mode="sideways")


def test_catalog_excludes_random_inplace_and_private_ops():
    names = {e.info.name for e in load_catalog()}
    for bad in ("bernoulli", "nn.functional.dropout", "empty_like", "zero_", "resize_", "svd"):
        assert bad not in names
    assert not [n for n in names if n.startswith(("_", "sparse.", "torch."))]
    assert {"add", "nn.functional.relu", "linalg.norm", "special.i0e", "fft.fft"} <= names


def test_generate_uses_the_context_check_and_counts(gen):
    verdicts = iter([Verdict.INVALID, Verdict.NONDETERMINISTIC, Verdict.PASS])
    seen = []

    def check(program):
        seen.append(program)
        return CheckResult(next(verdicts), Phase.EAGER if seen else None)

    before = gen.stats.tries
    prog = gen.generate(5, GenContext(eager_check=check))
    assert prog is not None and prog.source == seen[-1].source and len(seen) == 3
    assert gen.stats.tries - before == 3
    assert gen.stats.verdicts["invalid"] >= 1 and gen.stats.programs >= 1
    never = gen.generate(6, GenContext(eager_check=lambda p: CheckResult(Verdict.INVALID)))
    assert never is None


# -- the pure renderer ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_float_literals_are_exact(dtype):
    t = torch.randn(200, dtype=torch.float64).mul(1000).to(dtype)
    t = torch.cat([t, torch.tensor([0.1, -0.0, 1e-3, 65504.0]).to(dtype)])
    for v in t.double().tolist():
        back = torch.tensor([eval(float_literal(v, dtype))], dtype=dtype)
        assert back.item() == v or (v != v and back.isnan().all())
    assert float_literal(float("nan")) == 'float("nan")'
    assert float_literal(float("-inf")) == '-float("inf")'


def test_tensor_expr_keeps_dtype_shape_values_and_layout():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(3, 4, generator=g)
    cases = [
        torch.tensor(3, dtype=torch.int64),
        torch.tensor([True, False]),
        torch.arange(12, dtype=torch.uint8).reshape(3, 4),
        torch.zeros(0, 3),
        base,
        base.t(),  # transposed
        torch.randn(1, 4, generator=g).expand(5, 4),  # expanded
        torch.randn(2, 3, 4, generator=g).permute(2, 0, 1),
        torch.randn(4, 6, generator=g)[:, ::2],  # strided
        torch.randn(40, 50, generator=g),  # drawn, not literal
    ]
    for t in cases:
        made = eval(tensor_expr(t), {"torch": torch})
        assert made.dtype == t.dtype and made.shape == t.shape
        assert made.is_contiguous() == t.is_contiguous(), tensor_expr(t)
        assert [s == 0 for s in made.stride()] == [s == 0 for s in t.stride()]
        if t.numel() <= 16:
            assert torch.equal(made, t)
        else:
            assert made.min() >= t.min() - 0.125 and made.max() <= t.max() + 0.125


def test_literals():
    assert literal((2,)) == "(2,)"
    assert literal(torch.float16) == "torch.float16"
    assert literal(torch.Size([2, 3])) == "torch.Size([2, 3])"
    assert literal([None, "mean", slice(1, None, 2)]) == "[None, 'mean', slice(1, None, 2)]"
    with pytest.raises(Unrenderable):
        literal(1j)
    with pytest.raises(Unrenderable):
        literal(torch.nn.ReLU())


def _sample(inp, *args, **kwargs):
    return types.SimpleNamespace(input=inp, args=args, kwargs=kwargs)


def test_render_program_forms():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    spec = ProgramSpec(
        form=CallForm("func", "torch.sum"),
        samples=[_sample(x, 1, keepdim=True, dtype=torch.float64)],
        seed=4,
        label="sum",
        dtype=torch.float32,
        outs=[OutInfo("tensor", torch.float64, (2, 1))],
        lift=0.0,
    )
    src = render_program(spec, random.Random(0))
    assert "torch.sum(x0, 1, keepdim=True, dtype=torch.float64)" in src
    assert src == render_program(spec, random.Random(0))
    _, _, outs = _run(src)
    assert outs[0].dtype in (torch.float64, torch.int32, torch.float32)

    spec.lift = 1.0  # every literal a parameter (positional, or keyword-only via get_kwargs)
    src = render_program(spec, random.Random(1))
    assert "torch.sum(x0, a0," in src
    calls, kwargs, _ = _run(src)
    assert calls[0][1] == 1 and set(calls[0][2:]) | set(kwargs.values()) >= {True, torch.float64}

    radd = ProgramSpec(CallForm("binop", "+"), [_sample(x, 2.5)], 1, "__radd__", torch.float32)
    assert "return a0 + x0" in render_program(radd, random.Random(0)) or "return 2.5 + x0" in (
        render_program(radd, random.Random(0))
    )
    item = ProgramSpec(
        CallForm("getitem", ""), [_sample(x, (slice(0, 1), Ellipsis))], 1, "g", torch.float32
    )
    assert "return x0[0:1, ...]" in render_program(item, random.Random(0))
    seq = ProgramSpec(
        CallForm("func", "torch.neg"),
        [_sample(x), _sample(torch.ones(3, 1))],
        1,
        "neg",
        torch.float32,
        mode="dynamic",
        dynamic=True,
    )
    src = render_program(seq, random.Random(0))
    assert "def get_calls():" in src and 'compile_kwargs = {"dynamic": True}' in src
    calls, _, outs = _run(src)
    assert [o.shape for o in outs] == [(2, 2), (3, 1)]
    bad = ProgramSpec(
        CallForm("func", "torch.add"), [_sample(x, x), _sample(x, 1)], 1, "add", torch.float32
    )
    with pytest.raises(Unrenderable):
        render_program(bad, random.Random(0))


# -- shapes=boundary: OpInfo's size constants at boundary values ----------------------------------
def test_boundary_samples_use_boundary_sizes_and_leave_the_constants_alone():
    from torch.testing._internal.opinfo import core

    from torchsmith.generate.shapes import uses_boundary

    before = (core.XS, core.S, core.M, core.L)
    boundary = OpInfoGenerator(shapes="boundary", ops="add", mode="args")
    plain = OpInfoGenerator(shapes="random", ops="add", mode="args")
    dims = set()
    for seed in range(8):
        b, p = next(boundary.candidates(seed)), next(plain.candidates(seed))
        assert "shapes=boundary" in b.notes and "shapes=boundary" not in p.notes
        dims |= {int(n) for n in re.findall(r"\((\d+), ", b.source)}
        _run(b.source)  # the samples still run
    assert dims & {7, 9, 13, 15, 16, 17, 31, 33}, dims  # S, M, L at boundary values
    assert (core.XS, core.S, core.M, core.L) == before  # restored after each draw
    mixed = OpInfoGenerator(ops="add", mode="args")
    for seed in range(12):  # a seed that is not boundary under mixed: the program as before
        if not uses_boundary("mixed", seed):
            assert next(mixed.candidates(seed)).source == next(plain.candidates(seed)).source
    with pytest.raises(ValueError, match="shapes must be one of"):
        OpInfoGenerator(shapes="odd")
