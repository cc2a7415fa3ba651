"""Random straight-line bodies for the functions a higher-order op takes (a ``cond`` branch, a
``while_loop`` body, a ``scan`` combine function, a ``vmap``-ed function, a flex-attention
``score_mod``): short chains of shape-preserving ops, so any two bodies drawn for one input
return the same shape and dtype (what ``cond`` and the loop ops require of their branches and
carries).

Values stay moderate: every op maps a moderate tensor to a moderate one (``exp`` only of a
clamped argument, ``log`` only of ``1 + |a|``, divisions only by ``1 + |b|``), and a loop body
ends in ``tanh`` so that iterating it cannot grow without bound. Every op is continuous (the one
``where`` picks between two forms that agree at its threshold), so rounding noise cannot flip
a result of the program's own.

Pure: every choice from the ``random.Random`` given.
"""

from __future__ import annotations

import random

#: Unary ops on ``{a}`` (shape-preserving, moderate in, moderate out).
UNARY = (
    "torch.sin({a})",
    "torch.cos({a})",
    "torch.tanh({a})",
    "torch.sigmoid({a})",
    "torch.relu({a})",
    "{a}.abs()",
    "-{a}",
    "{a}.clamp(-3, 3).exp()",
    "torch.log1p({a}.abs())",
    "{a} * {c}",
    "{a} + {c}",
    "{a}.square() * 0.5",
    "torch.nn.functional.gelu({a})",
    "torch.nn.functional.silu({a})",
    "{a}.softmax(-1)",
    "{a}.cumsum(-1) * 0.25",
    "{a} - {a}.mean(-1, keepdim=True)",
    "{a}.flip(-1)",
    "{a}.roll(1, -1)",
    "{a} * {a}.sum(-1, keepdim=True).tanh()",
    "torch.nn.functional.normalize({a}, dim=-1)",
    "{a}.flatten().view_as({a}) * 0.5",
    "{a}.clone().mul_(0.5).add_(1.0)",
    "{a}.sum(-1, keepdim=True).expand_as({a}) * 0.25",
    "{a}.amax(-1, keepdim=True) - {a}",
    "torch.nn.functional.log_softmax({a}, -1)",
    "{a}.sort(-1).values",
    "{a}.cummax(-1).values",
    "{a}.unsqueeze(0).squeeze(0).neg()",
    # matmul, layer_norm and index ops inside subgraphs (what bodies of real models hold)
    "torch.matmul({a}.unsqueeze(-1), {a}.unsqueeze(-2)).sum(-1) * 0.1",
    "torch.nn.functional.layer_norm({a}, {a}.shape[-1:])",
    "{a}.gather(-1, {a}.argsort(-1))",
    "{a}.index_select(-1, torch.arange({a}.shape[-1] - 1, -1, -1))",
    "torch.nn.functional.pad({a}[..., 1:], (0, 1))",
    "{a}.tanh().cumprod(-1)",
)
#: Binary ops on ``{a}`` and ``{b}`` (same shape).
BINARY = (
    "{a} + {b}",
    "{a} - {b}",
    "{a} * {b}",
    "torch.maximum({a}, {b})",
    "torch.minimum({a}, {b})",
    "{a} / (1 + {b}.abs())",
    "torch.where({b} > 0, {a} * {b}, {b} * 0.5)",  # continuous at b = 0
    "torch.atan2({a}, {b}.abs() + 1)",
    "{a} * torch.sigmoid({b})",
)
CONSTANTS = ("0.5", "2.0", "-1.5", "0.125", "3.0")


def chain(rng: random.Random, names: list[str], length: int, out: str = "h") -> list[str]:
    """Lines computing ``out`` from the tensors ``names`` (same shape) in ``length`` ops; the
    first op reads ``names[0]``, binary ops read any name or an earlier result."""
    live = list(names)
    lines: list[str] = []
    cur = names[0]
    for i in range(length):
        var = out if i == length - 1 else f"{out}{i}"
        if rng.random() < 0.35 and len(live) > 1:
            other = rng.choice([n for n in live if n != cur] or live)
            expr = rng.choice(BINARY).format(a=cur, b=other)
        else:
            expr = rng.choice(UNARY).format(a=cur, c=rng.choice(CONSTANTS))
        lines.append(f"{var} = {expr}")
        live.append(var)
        cur = var
    if not lines:
        lines.append(f"{out} = {names[0]} * 1.0")
    return lines


#: ``score_mod`` terms of flex attention: ``{s}`` the score, the index tensors ``b, h, q, kv``.
SCORE_TERMS = (
    "{s} * {c}",
    "{s} + (q - kv) * 0.0625",
    "{s} + torch.abs(q - kv).float() * -0.125",
    "{s} + bias[h]",
    "{s} + rel[(q - kv).abs().clamp(max=rel.shape[0] - 1)]",
    "torch.tanh({s} / 4) * 4",
    "torch.where(q >= kv, {s}, {s} - 2.0)",
    "{s} + (h + 1).float() * 0.25",
    "{s} - (kv % 3).float() * 0.5",
)
#: ``mask_mod`` bodies (``None``: no block mask).
MASKS = {
    "none": None,
    "causal": "q >= kv",
    "window": "(q - kv).abs() <= 4",
    "prefix": "(kv < 4) | (q >= kv)",
    "doc": "(q // 8) == (kv // 8)",
}


def score_mod(rng: random.Random, length: int) -> list[str]:
    """The body of ``score_mod(score, b, h, q, kv)``: ``length`` terms applied in turn."""
    lines = []
    cur = "score"
    for i in range(length):
        var = f"s{i}"
        lines.append(f"{var} = " + rng.choice(SCORE_TERMS).format(s=cur, c=rng.choice(CONSTANTS)))
        cur = var
    return lines + [f"return {cur}"]
