"""Edge values on purpose (``values=mixed|edge|plain|wild``, ``generate/edges.py``): the share is
the seed's alone and named in the header, the other seeds keep their bytes, edge programs stay
valid, and nothing the policy (``notes/edge-values.md``) calls UNDEFINED is ever drawn."""

from __future__ import annotations

import contextlib
import math
import random
import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from torchsmith.generate.edges import EDGE_SHARE, edge_tensor, uses_edge
from torchsmith.generate.graph import EDGE_HEADER, GenOptions, generate_source

_SEEDS = st.integers(min_value=0, max_value=10**6)
_FAST = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


def _without_options(src: str) -> str:
    return "\n".join(line for line in src.splitlines() if not line.startswith("# options:"))


def _run(src: str):
    ns: dict = {}
    exec(compile(src, "<generated>", "exec"), ns)
    torch.manual_seed(0)
    model = ns["Model"](*ns["get_init_inputs"]())
    with torch.no_grad():
        out = model(*ns["get_inputs"]())
    return out if isinstance(out, tuple) else (out,)


# -- the share ----------------------------------------------------------------------------------
def test_mixed_is_the_default_and_holds_a_quarter_of_the_seeds():
    assert GenOptions().values == "mixed"
    share = sum(uses_edge("mixed", s) for s in range(4000)) / 4000
    assert abs(share - EDGE_SHARE) < 0.03
    assert all(uses_edge("edge", s) and not uses_edge("plain", s) for s in range(50))
    assert not any(uses_edge("wild", s) for s in range(50))  # the blanket mode is never mixed in
    with pytest.raises(ValueError, match="values must be one of"):
        GenOptions(values="extreme")


@given(_SEEDS)
@settings(max_examples=200, deadline=None)
def test_the_share_is_decided_by_the_seed_alone(seed):
    first = uses_edge("mixed", seed)
    random.seed(seed + 1)  # the global RNG has no say
    assert uses_edge("mixed", seed) == first


def test_edge_values_true_is_an_alias_of_values_edge():
    assert GenOptions(edge_values=True).values == "edge"
    assert generate_source(3, GenOptions(edge_values=True)).count(EDGE_HEADER) == 1


def test_the_header_names_edge_programs_and_only_them():
    for seed in range(40):
        src = generate_source(seed)
        assert (f"# {EDGE_HEADER}" in src) == uses_edge("mixed", seed), seed
        assert " values=" not in src.splitlines()[1]  # the options line keeps its old bytes
        assert EDGE_HEADER not in generate_source(seed, GenOptions(values="plain"))


@given(_SEEDS)
@_FAST
def test_seeds_outside_the_share_are_the_plain_programs(seed):
    if uses_edge("mixed", seed):
        return
    assert _without_options(generate_source(seed)) == _without_options(
        generate_source(seed, GenOptions(values="plain"))
    )


def test_wild_is_the_old_blanket_mode():
    src = generate_source(5, GenOptions(values="wild"))
    assert "with_edge_values" in src and EDGE_HEADER not in src


# -- validity -----------------------------------------------------------------------------------
@given(_SEEDS)
@_FAST
def test_edge_programs_are_valid_and_their_specs_keep_their_claims(seed):
    src = generate_source(seed, GenOptions(values="edge"), strict=True)
    assert f"# {EDGE_HEADER}" in src
    with _quiet():
        outs = _run(src)
    assert outs and all(isinstance(o, torch.Tensor) for o in outs)


@contextlib.contextmanager
def _quiet():
    """Without the warnings of empty reductions (var of 0 elements: defined, NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_edge_programs_draw_the_edges_the_issue_lists():
    text = "\n".join(generate_source(s, GenOptions(values="edge")) for s in range(150))
    for needle in (
        "masked_fill(",  # NaN/inf planted (rows 10, 11)
        'float("nan")',
        "1e+30",  # large magnitudes
        "* 0.5",  # exact .5 ties (row 19)
        ".narrow(",  # empty reductions (row 21)
        "2147483",  # int32 near INT_MAX (row 5)
        "torch.tensor(",  # 0-dim operands (row 20)
        "+ 0.0001",  # next to a pole
    ):
        assert needle in text, needle
    assert any(f">> {s}" in text or f"<< {s}" in text for s in (8, 9, 16, 32, 33, 64, 100))


# -- the policy: nothing UNDEFINED is drawn ------------------------------------------------------
_INT = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


class UndefinedSeen(TorchDispatchMode):
    """Records ops that hit what ``notes/edge-values.md`` calls UNDEFINED (rows 3, 6, 8, 13):
    float -> int of NaN/inf or out of range, int8/int16 add/sub/mul overflow, neg/abs of INT_MIN,
    left shifts of negatives or into the sign bit, integer pow with a negative exponent, integer
    division by zero, int64 sums past 2**63."""

    def __init__(self) -> None:
        super().__init__()
        self.hits: list[str] = []
        self.wraps = 0  # float/int -> uint8 casts of values in [-128, -1] (rows 2, 4: BUG side)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        before = args
        if name.endswith("_") and not name.startswith("__"):  # in place: add_ -> add, on
            name = name[:-1]  # the operands as they were before
            before = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
        out = func(*args, **kwargs)
        try:
            why = self._undefined(name, before, kwargs, out)
        except Exception as e:  # a check that cannot run must not pass silently
            why = f"check failed: {e}"
        if why:
            self.hits.append(f"{func}: {why}")
        return out

    def _undefined(self, name, args, kwargs, out) -> str | None:
        t = [a for a in args if isinstance(a, torch.Tensor)]
        if not isinstance(out, torch.Tensor) or not t:
            return None
        x = t[0]
        if name in ("_to_copy", "copy") and out.dtype in _INT:
            src = args[1] if name == "copy" else x
            if src.numel() and out.dtype == torch.uint8 and bool((src <= -1).any()):
                self.wraps += 1
            if not src.is_floating_point() or src.numel() == 0:
                return None
            if not bool(torch.isfinite(src).all()):
                return "NaN/inf cast to an integer"
            v = src.double().trunc()
            lo = -128 if out.dtype == torch.uint8 else torch.iinfo(out.dtype).min
            if v.min() < lo or v.max() > torch.iinfo(out.dtype).max:
                return f"float out of {out.dtype}'s range"
        if out.dtype in (torch.int8, torch.int16) and name in ("add", "sub", "mul", "rsub"):
            wide = [a.long() if isinstance(a, torch.Tensor) else a for a in args]
            ref = getattr(torch, name)(*wide, **kwargs)
            if bool((ref != out.long()).any()):
                return "int8/int16 overflow"
        if name in ("neg", "abs") and x.dtype in _INT[:4] and x.numel():
            if bool((x == torch.iinfo(x.dtype).min).any()):
                return "neg/abs of INT_MIN"
        if name in ("bitwise_left_shift", "__lshift__") and x.dtype in _INT and x.numel():
            s = args[1]
            s = s if isinstance(s, torch.Tensor) else torch.tensor(s)
            w = torch.iinfo(x.dtype).bits
            if x.dtype != torch.uint8 and bool((x < 0).any()):
                return "left shift of a negative"
            reach = x.double() * torch.pow(2.0, s.double().clamp(max=w))
            inside = s < w
            if bool((inside & (reach > torch.iinfo(x.dtype).max)).any()):
                return "left shift into the sign bit"
        if name == "pow" and x.dtype in _INT:
            e = args[1]
            if (isinstance(e, torch.Tensor) and bool((e < 0).any())) or (
                isinstance(e, int | float) and e < 0
            ):
                return "integer pow with a negative exponent"
        if name in ("div", "floor_divide", "remainder", "fmod") and out.dtype in _INT:
            d = args[1]
            if (isinstance(d, torch.Tensor) and bool((d == 0).any())) or d == 0:
                return "integer division by zero"
        if name in ("sum", "cumsum") and out.dtype == torch.int64 and x.numel():
            if float(x.double().abs().sum()) >= 2.0**63:
                return "int64 sum overflow"
        return None


def test_the_sentinel_sees_what_the_policy_calls_undefined():
    cases = [
        lambda: torch.tensor([float("nan"), 1.0]).to(torch.int32),
        lambda: torch.tensor([-200.0]).to(torch.uint8),
        lambda: torch.tensor([300.0]).to(torch.int8),
        lambda: torch.tensor([100], dtype=torch.int8) + torch.tensor([100], dtype=torch.int8),
        lambda: torch.neg(torch.tensor([-(2**31)], dtype=torch.int32)),
        lambda: torch.tensor([-3]) << 1,
        lambda: torch.tensor([3], dtype=torch.int8) << 6,
        lambda: torch.pow(torch.tensor([2]), torch.tensor([-1])),
    ]
    for i, case in enumerate(cases):
        with UndefinedSeen() as seen:
            case()
        assert seen.hits, i
    with UndefinedSeen() as seen:  # the BUG side is not flagged
        torch.tensor([-1.5, 255.7]).to(torch.uint8)
        torch.tensor([3], dtype=torch.int8) << 8
        torch.tensor([2**31 - 1], dtype=torch.int32) + 5
    assert not seen.hits


def test_edge_programs_never_reach_undefined_behaviour():
    hits, wraps = [], 0
    for seed in range(120):
        src = generate_source(seed, GenOptions(values="edge"))
        with _quiet(), UndefinedSeen() as seen:
            _run(src)
        hits += [f"seed {seed}: {h}" for h in seen.hits]
        wraps += seen.wraps
    assert not hits, "\n".join(hits[:10])
    assert wraps >= 2  # negatives into uint8 on purpose (the BUG side, rows 2 and 4)


# -- opinfo -------------------------------------------------------------------------------------
def test_edge_tensor_keeps_to_float32_64_and_their_layout():
    rng = random.Random(0)
    i = torch.arange(6)
    assert edge_tensor(i, rng) is i
    h = torch.ones(4, dtype=torch.float16)
    assert edge_tensor(h, rng) is h
    e = torch.ones(3, 1).expand(3, 4)
    assert edge_tensor(e, rng) is e
    seen = set()
    for _ in range(40):
        t = torch.ones(4, 5).t()
        u = edge_tensor(t, rng)
        assert u.stride() == t.stride() and u.shape == t.shape
        if u is not t:
            seen.add("special" if not bool(torch.isfinite(u).all()) else "scaled")
            assert not bool(torch.isfinite(u).all()) or float(u.abs().max()) >= 1e3
    assert seen == {"special", "scaled"}


def test_opinfo_share_header_and_plain_seeds():
    pytest.importorskip("expecttest")
    from torchsmith.generate.opinfo.generator import OpInfoGenerator

    mixed, plain, edge = (OpInfoGenerator(values=v) for v in ("mixed", "plain", "edge"))
    marked = 0
    for seed in range(16):
        a = next(mixed.candidates(seed)).source
        b = next(plain.candidates(seed)).source
        if not uses_edge("mixed", seed):
            assert a == b, seed
        assert "# values: edge" not in b
        src = next(edge.candidates(seed)).source
        marked += "# values: edge" in src
        if "# values: edge" in src:
            assert "dtype: float32" in src or "dtype: float64" in src
    assert marked >= 3
    assert math.isfinite(EDGE_SHARE)


def test_normalizations_get_scaled_edge_values_never_nan_or_inf():
    import random

    import torch

    from torchsmith.generate.edges import special_ok

    assert not special_ok("nn.functional.instance_norm")
    assert not special_ok("nn.functional.batch_norm.without_cudnn")
    assert special_ok("nn.functional.normalize") and special_ok("sort") and special_ok("norm")
    t = torch.randn(3, 4)
    drawn = [edge_tensor(t, random.Random(i), special=False) for i in range(200)]
    assert all(torch.isfinite(u).all() for u in drawn)
    assert any(not torch.equal(u, t) for u in drawn)  # still scaled to large magnitudes
    assert any(not torch.isfinite(edge_tensor(t, random.Random(i))).all() for i in range(200))
