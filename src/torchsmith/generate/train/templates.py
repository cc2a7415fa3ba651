"""Small models for training steps: what a ``train`` program's ``Net`` is, its input and its loss.

Each template is pure: it draws sizes and layers from the ``random.Random`` it is given and
returns a :class:`NetSpec` (the ``Net`` class source, the ``get_inputs()`` body, the loss
expression). Values stay moderate (default initialisation, inputs in [-1, 1], targets of the
output's scale), so a few optimizer steps keep every value far from overflow.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

ACTS = {
    "relu": "nn.ReLU()",
    "gelu": "nn.GELU()",
    "tanh": "nn.Tanh()",
    "silu": "nn.SiLU()",
    "sigmoid": "nn.Sigmoid()",
}


@dataclasses.dataclass
class NetSpec:
    name: str
    net: list[str]  # the Net class, lines
    inputs: list[str]  # get_inputs() body, lines (``g`` is a seeded torch.Generator)
    loss: str  # an expression of ``out`` and ``target``
    act: str
    route: str = ""  # the hop template: the higher-order op the hidden layer goes through


def _act(rng: random.Random, acts: list[str]) -> str:
    return rng.choice(acts)


def _cls(init: list[str], forward: list[str]) -> list[str]:
    return [
        "class Net(nn.Module):",
        "    def __init__(self):",
        "        super().__init__()",
        *[f"        {line}" for line in init],
        "",
        "    def forward(self, x):",
        *[f"        {line}" for line in forward],
    ]


def _regression(batch: int, shape: str, out: int) -> list[str]:
    return [
        f"x = torch.rand({shape}, generator=g) * 2 - 1",
        f"target = torch.rand({batch}, {out}, generator=g) - 0.5",
        "return [x, target]",
    ]


def mlp(rng: random.Random, acts: list[str]) -> NetSpec:
    d_in, hidden, d_out = rng.choice((4, 8, 12)), rng.choice((8, 16, 32)), rng.choice((2, 4, 5))
    batch, act = rng.randint(2, 8), _act(rng, acts)
    bias = rng.random() < 0.8
    init = [
        f"self.fc1 = nn.Linear({d_in}, {hidden}, bias={bias})",
        f"self.act = {ACTS[act]}",
        f"self.fc2 = nn.Linear({hidden}, {d_out})",
    ]
    forward = ["return self.fc2(self.act(self.fc1(x)))"]
    if rng.random() < 0.4:  # a residual block
        init.insert(2, f"self.mid = nn.Linear({hidden}, {hidden})")
        forward = [
            "h = self.act(self.fc1(x))",
            "h = h + self.act(self.mid(h))",
            "return self.fc2(h)",
        ]
    return NetSpec(
        "mlp", _cls(init, forward), _regression(batch, f"{batch}, {d_in}", d_out), _mse(rng), act
    )


def conv(rng: random.Random, acts: list[str]) -> NetSpec:
    c_in, c_mid, size = rng.choice((1, 3)), rng.choice((4, 6, 8)), rng.choice((6, 8))
    d_out, batch, act = rng.choice((2, 3)), rng.randint(2, 4), _act(rng, acts)
    kernel = rng.choice((1, 3))
    pool = rng.choice(("F.adaptive_avg_pool2d(h, 1)", "F.max_pool2d(h, 2)", "h.mean((2, 3), True)"))
    flat = c_mid * (size // 2) ** 2 if pool.startswith("F.max") else c_mid
    init = [
        f"self.conv = nn.Conv2d({c_in}, {c_mid}, {kernel}, padding={kernel // 2})",
        f"self.act = {ACTS[act]}",
        f"self.fc = nn.Linear({flat}, {d_out})",
    ]
    forward = ["h = self.act(self.conv(x))", f"h = {pool}", "return self.fc(h.flatten(1))"]
    shape = f"{batch}, {c_in}, {size}, {size}"
    return NetSpec("conv", _cls(init, forward), _regression(batch, shape, d_out), _mse(rng), act)


def norm(rng: random.Random, acts: list[str]) -> NetSpec:
    d_in, hidden, d_out = rng.choice((4, 8)), rng.choice((8, 16)), rng.choice((2, 4))
    batch, act = rng.randint(3, 8), _act(rng, acts)
    layer = rng.choice(
        (
            f"nn.LayerNorm({hidden})",
            f"nn.GroupNorm(2, {hidden})",
            f"nn.BatchNorm1d({hidden}, track_running_stats=False)",
            f"nn.RMSNorm({hidden})",
        )
    )
    init = [
        f"self.fc1 = nn.Linear({d_in}, {hidden})",
        f"self.norm = {layer}",
        f"self.act = {ACTS[act]}",
        f"self.fc2 = nn.Linear({hidden}, {d_out})",
    ]
    forward = ["return self.fc2(self.act(self.norm(self.fc1(x))))"]
    return NetSpec(
        "norm", _cls(init, forward), _regression(batch, f"{batch}, {d_in}", d_out), _mse(rng), act
    )


def embedding(rng: random.Random, acts: list[str]) -> NetSpec:
    vocab, dim, classes = rng.choice((10, 16, 20)), rng.choice((4, 8)), rng.choice((3, 5))
    batch, seq, act = rng.randint(2, 6), rng.randint(2, 5), _act(rng, acts)
    init = [
        f"self.emb = nn.Embedding({vocab}, {dim})",
        f"self.act = {ACTS[act]}",
        f"self.fc = nn.Linear({dim}, {classes})",
    ]
    forward = ["h = self.emb(x).mean(1)", "return self.fc(self.act(h))"]
    inputs = [
        f"x = torch.randint(0, {vocab}, ({batch}, {seq}), generator=g)",
        f"target = torch.randint(0, {classes}, ({batch},), generator=g)",
        "return [x, target]",
    ]
    loss = rng.choice(
        ("F.cross_entropy(out, target)", "F.cross_entropy(out, target, label_smoothing=0.1)")
    )
    return NetSpec("embedding", _cls(init, forward), inputs, loss, act)


#: How the ``hop`` template routes the hidden layer through a higher-order op.
HOP_ROUTES = ("cond", "checkpoint", "region", "scan", "map")


def hop(rng: random.Random, acts: list[str]) -> NetSpec:
    """An MLP whose hidden layer goes through a higher-order op, so the training step's backward
    (compiled autograd's, in half the programs) runs that op's backward: ``torch.cond`` on an
    input element (no rounding can flip it), activation checkpointing, a
    ``nested_compile_region`` called twice with the layer's weights, a ``scan`` over the batch
    whose step reads a parameter, or a ``map`` over rows."""
    d_in, hidden, d_out = rng.choice((4, 8)), rng.choice((8, 16)), rng.choice((2, 4))
    batch, act = rng.randint(3, 8), _act(rng, acts)
    route = rng.choice(HOP_ROUTES)
    init = [
        f"self.fc1 = nn.Linear({d_in}, {hidden})",
        f"self.mid = nn.Linear({hidden}, {hidden})",
        f"self.act = {ACTS[act]}",
        f"self.fc2 = nn.Linear({hidden}, {d_out})",
    ]
    top: list[str] = []
    forward = ["h = self.act(self.fc1(x))"]
    if route == "cond":
        forward += [
            "h = torch.cond(x[0, 0] > 0, lambda t: self.act(self.mid(t)), lambda t: t * 0.5 + 1,"
            " (h,))"
        ]
    elif route == "checkpoint":
        init.append("self.block = nn.Sequential(self.mid, self.act)")
        forward += ["h = torch.utils.checkpoint.checkpoint(self.block, h, use_reentrant=False)"]
    elif route == "region":
        top = [
            "@torch.compiler.nested_compile_region",
            "def block(h, w, b):",
            "    return torch.tanh(h @ w.t() + b)",
            "",
            "",
        ]
        forward += ["h = block(h, self.mid.weight, self.mid.bias)"] * rng.choice((1, 2))
    elif route == "scan":
        top = ["from torch._higher_order_ops.scan import scan", "", ""]
        init.append(f"self.decay = nn.Parameter(torch.full(({hidden},), 0.5))")
        forward += [
            "def step(carry, row):",
            "    new = torch.tanh(carry * self.decay + row)",
            "    return new, new * 2",
            "",
            "h = self.mid(h)",
            "_, ys = scan(step, torch.zeros_like(h[0]), h)",
            "h = ys + h",
        ]
    else:
        top = ["from torch._higher_order_ops.map import map as hop_map", "", ""]
        forward += [
            "h = hop_map(lambda r, w, b: torch.tanh(w @ r + b), h, self.mid.weight, self.mid.bias)"
        ]
    forward += ["return self.fc2(h)"]
    inputs = _regression(batch, f"{batch}, {d_in}", d_out)
    return NetSpec("hop", top + _cls(init, forward), inputs, _mse(rng), act, route)


def _mse(rng: random.Random) -> str:
    return rng.choice(
        (
            "F.mse_loss(out, target)",
            "((out - target) ** 2).sum()",
            "F.huber_loss(out, target, delta=0.5)",
        )
    )


TEMPLATES: dict[str, Callable[[random.Random, list[str]], NetSpec]] = {
    "mlp": mlp,
    "conv": conv,
    "norm": norm,
    "embedding": embedding,
    "hop": hop,
}
