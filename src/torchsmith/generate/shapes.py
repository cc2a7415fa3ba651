"""Boundary sizes on purpose (``shapes=boundary``, graph and opinfo families): 0, 1, primes,
and the sizes around the CPU vector width and the tile sizes Inductor's C++ kernels and GEMM
templates use.

A float32 vector holds 8 lanes with AVX2 and 16 with AVX512; Inductor's CPU kernels tile by
multiples of the lane count and handle the rest in a tail loop, and its GEMM templates block by
16/32/64. A size one below, at or one above those (7 8 9, 15 16 17, 31 32 33, 63 64 65) walks
the main loop, the tail loop and their seam; 0 and 1 the empty and broadcast special cases;
primes (7, 13, 31) tile evenly by nothing.

``shapes`` is ``mixed`` by default: :data:`BOUNDARY_SHARE` of the seeds draw boundary sizes
(decided by the seed alone, :func:`uses_boundary`), the others the usual small sizes;
``boundary`` draws them for every seed, ``random`` for none. Boundary programs also mark some
input dimensions dynamic (:func:`dynamic_marks`), with ``torch._dynamo.maybe_mark_dynamic`` in
``get_inputs``: a mark the program's own code specializes away is not an error there, so a
mark never makes a valid program fail. Invariant: every boundary shape keeps
``max_numel`` (sizes may pass ``max_dim_size``, up to 65).
"""

from __future__ import annotations

import math
import random

SHAPES = ("mixed", "boundary", "random")
#: The share of seeds with boundary sizes under ``shapes=mixed``.
BOUNDARY_SHARE = 0.2


def weights(table: str) -> dict[int, float]:
    """``"1:1.0 7:0.5"`` -> ``{1: 1.0, 7: 0.5}``: a size and its draw weight per entry."""
    return {int(k): float(v) for k, v in (item.split(":") for item in table.split())}


#: Sizes of an innermost (vectorized) dimension, with weights.
LANE_SIZES = weights(
    "1:1.0 7:1.0 8:0.5 9:1.0 13:0.5 15:1.0 16:0.7 17:1.0 31:1.0 32:0.7 33:1.0 63:0.8 64:0.5 65:0.8"
)
#: Matrix dimensions around the GEMM block sizes, with their weights.
GEMM_SIZES = weights(
    "1:0.5 7:0.7 15:1.0 16:0.7 17:1.0 31:1.0 32:0.7 33:1.0 48:0.5 63:0.7 64:0.5 65:0.7"
)
#: Sizes of any other dimension, with weights (0 rarely: an empty tensor).
OUTER_SIZES = {0: 0.15, 1: 1.5, 2: 1.0, 3: 1.0, 7: 1.0, 13: 0.7, 16: 0.5, 17: 0.7, 31: 0.5, 33: 0.3}


def in_share(mode: str, seed: int, always: str, share: float, salt: str) -> bool:
    """The rule of a ``mixed`` option: ``always`` picks every seed, ``mixed`` the ``share`` of
    seeds its salted draw picks (the seed alone decides), anything else none."""
    if mode == always:
        return True
    if mode == "mixed":
        return random.Random(f"{salt}-{seed}").random() < share
    return False


def uses_boundary(shapes: str, seed: int) -> bool:
    """Whether program ``seed`` draws boundary sizes (the seed and the option alone)."""
    return in_share(shapes, seed, "boundary", BOUNDARY_SHARE, "shapes")


def _draw(rng: random.Random, table: dict[int, float]) -> int:
    return rng.choices(list(table), list(table.values()))[0]


def boundary_shape(rng: random.Random, rank: int, max_numel: int) -> tuple[int, ...]:
    """A shape of ``rank`` with a lane-boundary innermost size and boundary outer sizes, at
    most ``max_numel`` elements."""
    for _ in range(20):
        shape = [_draw(rng, OUTER_SIZES) for _ in range(rank - 1)] + [_draw(rng, LANE_SIZES)]
        if math.prod(shape) <= max_numel:
            return tuple(shape)
    last = _draw(rng, LANE_SIZES)
    return tuple([1] * (rank - 1) + [last if last <= max_numel else 1])


def gemm_size(rng: random.Random) -> int:
    """A matrix dimension (an mm's N, a linear's out_features) around the GEMM block sizes."""
    return _draw(rng, GEMM_SIZES)


def dynamic_marks(rng: random.Random, shapes: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    """``(input index, dim)`` pairs to mark dynamic: about half the inputs, one dimension of
    size 2 or more each (0 and 1 are always specialized by Dynamo)."""
    marks = []
    for i, shape in enumerate(shapes):
        dims = [d for d, n in enumerate(shape) if n >= 2]
        if dims and rng.random() < 0.5:
            marks.append((i, rng.choice(dims)))
    return marks


#: OpInfo's sample builders size their tensors by module constants (``XS=3, S=5, M=10, L=20``
#: in ``torch.testing._internal.opinfo.core``): boundary programs of the ``opinfo`` family
#: build their samples with these replaced (see :func:`opinfo_sizes`).
OPINFO_SIZES = {"XS": (1, 2, 3), "S": (7, 9, 13), "M": (15, 16, 17), "L": (31, 33)}


def opinfo_sizes(seed: int) -> dict[str, int]:
    """The constants one boundary ``opinfo`` program's samples are built with (seeded)."""
    rng = random.Random(f"opinfo-sizes-{seed}")
    return {name: rng.choice(choices) for name, choices in OPINFO_SIZES.items()}
