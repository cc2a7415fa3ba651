"""Edge values on purpose (``values=edge``, graph and opinfo families), on the BUG side of the
written policy (``notes/edge-values.md``) only.

``values`` is ``mixed`` by default: :data:`EDGE_SHARE` of the seeds draw edge values (decided by
the seed alone, :func:`uses_edge`), the others are the programs ``plain`` gives, byte for byte;
``edge`` draws them for every seed, ``plain`` for none. ``wild`` is the older blanket mode
(``with_edge_values``: ~10 % of every input overwritten with zeros, inf, NaN, denormals and
extremes, guards skipped, range checks off): it reaches UNDEFINED cases too (NaN into int casts,
int8 overflow), so it is never drawn by ``mixed``.

What an edge program of the graph family draws (each with the policy row that makes it a bug):

* large magnitudes: float32/float64 inputs over ``[-1e4, 1e4]`` up to ``[-1e30, 1e30]`` (the
  program's safe magnitude for those dtypes is raised to 1e30; fp16/bf16 keep theirs, row 17);
* near poles and zeros: the guards before ``log``/``reciprocal``/``rsqrt``/``lgamma`` add 1e-4
  instead of 0.5, before ``asin``/``atanh``/``erfinv`` clamp to 0.999, before ``acosh`` add
  1.001, and ``tan`` takes up to 1.57; only on exactly computed operands, so that no rounding
  difference upstream is amplified into a false alarm;
* float -> uint8 of values truncating into [-128, -1] (row 2), int -> uint8 narrowing (row 4);
* shift amounts w-1, w, w+1, 64 and 100 (row 7; left shifts of non-negative values by >= w only,
  a shift into the sign bit is row 6);
* int32/int64 add/sub/mul past INT_MAX or INT_MIN whose result goes straight to an output
  (row 5's "only through add/sub/mul");
* NaN and +-inf into max/min/amax/amin, clamp, sort, maximum/minimum, cummax, softmax, sum,
  mul/sub and remainder, results straight to an output (rows 10, 11);
* exact .5 ties before round/floor/ceil/trunc (row 19: ``k * 0.5`` inputs);
* dims of size 0 (row 21) and 0-dim / Python-scalar operands of another dtype (row 20).

Never drawn: float -> int of NaN/inf or out of range (row 3), int8/int16 overflow, ``neg``/``abs``
of INT_MIN, int64 reduction overflow (row 6), signed-zero-only differences (row 14), subnormals
(row 16), integer ``pow`` with negative exponents (row 13), integer division by zero (rows 8/9).
"""

from __future__ import annotations

import random

from torchsmith.generate.shapes import in_share

VALUES = ("mixed", "edge", "plain", "wild")
#: The share of seeds with edge values under ``values=mixed``.
EDGE_SHARE = 0.25


def uses_edge(values: str, seed: int) -> bool:
    """Whether program ``seed`` draws (policy-safe) edge values: the seed and the option alone."""
    return in_share(values, seed, "edge", EDGE_SHARE, "values")


def check_values(values: str) -> None:
    if values not in VALUES:
        raise ValueError(f"values must be one of {', '.join(VALUES)}, not {values!r}")


# -- the opinfo family ---------------------------------------------------------------------------
#: What an edge ``opinfo`` program's float32/float64 sample tensors get (seeded): the whole tensor
#: scaled to a large magnitude (float64 still agrees: no overflow to inf below 1e38), or every
#: k-th element NaN / +-inf (written as exact literals, so only for tensors that are).
OPINFO_SCALES = (1e3, 1e6, 1e12, 1e18)
OPINFO_SPECIAL = (float("nan"), float("inf"), float("-inf"))
#: Tensors with more elements than this are only scaled (NaN positions would be lost to
#: ``make_tensor``); ``EXACT_LITERAL_MAX`` of the opinfo renderer.
OPINFO_SPECIAL_MAX = 256


def special_ok(op: str) -> bool:
    """Whether NaN/+-inf may go into an op's tensors. Not for the normalizations
    (``batch_norm``, ``instance_norm``, ``group_norm``, ``layer_norm``, ``rms_norm``, ...): their
    eager kernels fold the affine into ``x * scale + shift``, their decompositions compute
    ``(x - mean) * rstd * w + b``, and with an infinite weight or bias the two place NaN and
    -inf differently, neither more right (``instance_norm`` of ``[1, -2, 3, 0.5]`` with
    ``w = inf, b = -inf``: eager NaN at 0.5, the decomposition -inf; float64 eager sides with
    eager's formula). A 12-minute shapes-surface run flagged one such program as a new bug."""
    return not any(part.endswith("_norm") for part in op.split("."))


def edge_tensor(t, rng: random.Random, special: bool = True):
    """``t`` (a sample tensor) with edge values, or ``t`` itself: only float32/float64 tensors
    whose layout survives a clone (not expanded ones), half of them. ``special=False``: scaled
    only, never NaN/inf (:func:`special_ok`)."""
    import torch

    if not isinstance(t, torch.Tensor) or t.dtype not in (torch.float32, torch.float64):
        return t
    if t.numel() == 0 or 0 in t.stride() or rng.random() < 0.5:
        return t
    u = t.detach().clone()
    if t.numel() <= OPINFO_SPECIAL_MAX and rng.random() < 0.5 and special:
        k = rng.choice([2, 3, 5])
        mask = (torch.arange(t.numel()) % k == 0).reshape(t.shape)
        return u.masked_fill_(mask, rng.choice(OPINFO_SPECIAL))
    return u.mul_(rng.choice(OPINFO_SCALES))


def edge_sample(sample, rng: random.Random, special: bool = True):
    """An OpInfo ``SampleInput`` with :func:`edge_tensor` applied to each of its tensors."""
    return sample.transform(lambda t: edge_tensor(t, rng, special))
