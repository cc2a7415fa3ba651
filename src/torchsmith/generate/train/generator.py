"""``--generator train`` (and ``family=train`` in the mix): compiled training steps.

A ``train`` program is an ``nn.Module`` ``Model`` that holds a small ``Net`` (``templates.py``:
an MLP, a conv net, a norm layer between linears, an embedding classifier, an MLP whose hidden
layer goes through a higher-order op: ``cond``, checkpoint, ``nested_compile_region``, ``scan``
or ``map``, so the step's backward runs that op's backward) and a seeded
optimizer (SGD with or without momentum, Nesterov and weight decay; Adam or AdamW, sometimes
AMSGrad, ``foreach=False`` or ``fused=True``), and whose ``forward(x, target)`` runs 1-3
optimizer steps (zero_grad, forward, loss, ``backward()``, ``step()``) under
``torch.enable_grad()`` and returns the losses, the parameters after the steps and the last
gradients. So the whole step is a plain program: the oracle judges losses, updated parameters
and gradients against eager and float64 like any output (``out[1][i]`` is parameter ``i``,
``out[2][i]`` its gradient), with no new judging code. Each run builds a fresh ``Model`` with
the same seed (fresh parameters, fresh optimizer state); a call sequence (two calls) continues
training on the same model within a run.

Half the programs (``compiled_autograd``) declare ``compile_config =
{"dynamo.compiled_autograd": True}``, so ``backward()`` inside the compiled step is captured by
compiled autograd; the others take Dynamo's graph break at ``backward()`` (AOTAutograd's
compiled backward). Every choice comes from ``random.Random("torchsmith-train:s:attempt")``:
same seed, same bytes. Notes: ``family=train``, ``model=``, ``opt=``, ``act=``, ``steps=``,
``calls=``, ``compiled_autograd=`` (and ``route=`` for the ``hop`` model).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Iterator

from torchsmith.generate.family import FamilyStats, ValidatedFamily, note_values
from torchsmith.generate.hop.generator import CAPTURE, CAPTURE_SHARE, SCALAR_READERS
from torchsmith.generate.protocol import choose_names
from torchsmith.generate.train.templates import ACTS, TEMPLATES, NetSpec
from torchsmith.program.format import Program

OPTIMIZERS = ("sgd", "adam")


@dataclasses.dataclass
class TrainOptions:
    models: str | None = None  # comma-separated templates (mlp, conv, norm, embedding, hop)
    optimizers: str | None = None  # comma-separated: sgd, adam
    acts: str | None = None  # comma-separated activations (relu, gelu, tanh, silu, sigmoid)
    compiled_autograd: float = 0.5  # share of programs with dynamo.compiled_autograd
    max_steps: int = 3  # optimizer steps per call (1..max_steps)
    sequence_prob: float = 0.25  # two calls (training continues on the same model)
    max_tries: int = 8
    check_timeout: float = 60.0


@dataclasses.dataclass
class TrainStats(FamilyStats):
    produced: int = 0
    models: Counter[str] = dataclasses.field(default_factory=Counter)
    optimizers: Counter[str] = dataclasses.field(default_factory=Counter)


def _names(spec: str | None, known: tuple[str, ...] | list[str], what: str) -> list[str]:
    return choose_names(spec, known, "train generator", what)


def optimizer_line(rng: random.Random, kind: str) -> tuple[str, str]:
    """``torch.optim.X(self.net.parameters(), ...)`` and a short label."""
    if kind == "sgd":
        kw = [f"lr={rng.choice((0.05, 0.1, 0.01))}"]
        if rng.random() < 0.6:
            kw.append(f"momentum={rng.choice((0.9, 0.5))}")
            if rng.random() < 0.3:
                kw.append("nesterov=True")
        if rng.random() < 0.4:
            kw.append(f"weight_decay={rng.choice((1e-2, 1e-3))}")
        if rng.random() < 0.3:
            kw.append("foreach=False")
        return f"torch.optim.SGD(self.net.parameters(), {', '.join(kw)})", "sgd"
    cls = rng.choice(("Adam", "AdamW"))
    kw = [f"lr={rng.choice((0.01, 0.005, 0.02))}"]
    if rng.random() < 0.3:
        kw.append(f"betas=({rng.choice((0.8, 0.9))}, {rng.choice((0.99, 0.999))})")
    if rng.random() < 0.4:
        kw.append(f"weight_decay={rng.choice((1e-2, 1e-3))}")
    if rng.random() < 0.2:
        kw.append("amsgrad=True")
    r = rng.random()
    if r < 0.2:
        kw.append("foreach=False")
    elif r < 0.4:
        kw.append("fused=True")
    return f"torch.optim.{cls}(self.net.parameters(), {', '.join(kw)})", cls.lower()


def render_program(
    seed: int, attempt: int, opts: TrainOptions, names: dict[str, list[str]]
) -> Program:
    """The candidate for ``seed`` and ``attempt`` (pure: no execution)."""
    rng = random.Random(f"torchsmith-train:{seed}:{attempt}")
    model = rng.choice(names["models"])
    spec: NetSpec = TEMPLATES[model](rng, names["acts"])
    opt_src, opt_label = optimizer_line(rng, rng.choice(names["optimizers"]))
    steps = rng.randint(1, max(1, opts.max_steps))
    calls = 2 if rng.random() < opts.sequence_prob else 1
    ca = rng.random() < opts.compiled_autograd
    input_seed = rng.randrange(10_000)
    header = [
        f"Generated by torchsmith train: seed={seed} attempt={attempt}",
        f"model: {spec.name}{'/' + spec.route if spec.route else ''} ({spec.act}); optimizer: {opt_src.split('(', 1)[0]}; steps: {steps};"
        f" calls: {calls}; compiled_autograd: {ca}",
    ]
    lines = [f"# {h}" for h in header]
    lines += ["import torch", "import torch.nn as nn", "import torch.nn.functional as F", "", ""]
    lines += spec.net + ["", ""]
    lines += [
        "class Model(nn.Module):",
        "    def __init__(self):",
        "        super().__init__()",
        "        self.net = Net()",
        f"        self.opt = {opt_src}",
        "",
        "    def step(self, x, target):",
        "        self.opt.zero_grad(set_to_none=True)",
        "        out = self.net(x)",
        f"        loss = {spec.loss}",
        "        loss.backward()",
        "        self.opt.step()",
        "        return loss.detach()",
        "",
        "    def forward(self, x, target):",
        "        with torch.enable_grad():",
        *[f"            loss{i} = self.step(x, target)" for i in range(steps)],
        "        params = [p.detach().clone() for p in self.net.parameters()]",
        "        grads = [p.grad.detach().clone() for p in self.net.parameters()]",
        f"        return torch.stack([{', '.join(f'loss{i}' for i in range(steps))}]), params, grads",
        "",
        "",
        "def _inputs(seed):",
        "    g = torch.Generator().manual_seed(seed)",
        *[f"    {line}" for line in spec.inputs],
        "",
        "",
        "def get_inputs():",
        f"    return _inputs({input_seed})",
        "",
    ]
    if calls > 1:
        lines += [
            "",
            "def get_calls():",
            f"    return [_inputs({input_seed}), _inputs({input_seed + 1})]",
            "",
        ]
    config: dict[str, object] = {"dynamo.compiled_autograd": True} if ca else {}
    if spec.route in SCALAR_READERS and rng.random() < CAPTURE_SHARE:
        config[CAPTURE] = True  # as the hop family does: pytorch#153437 otherwise, every time
    if config:
        items = ", ".join(f'"{k}": {v!r}' for k, v in config.items())
        lines += ["", f"compile_config = {{{items}}}", ""]
    notes = (
        "family=train",
        f"model={spec.name}",
        f"opt={opt_label}",
        f"act={spec.act}",
        f"steps={steps}",
        f"calls={calls}",
        f"compiled_autograd={ca}",
        *((f"route={spec.route}",) if spec.route else ()),
    )
    return Program("\n".join(lines), "Model", f"train_{seed}", "generated", notes=notes)


class TrainGenerator(ValidatedFamily):
    """The ``train`` family (see the module docstring)."""

    Options = TrainOptions
    name = "train"
    LIST_OPTIONS = ("models", "optimizers", "acts")

    def setup(self) -> None:
        self.names = {
            "models": _names(self.opts.models, tuple(TEMPLATES), "model(s)"),
            "optimizers": _names(self.opts.optimizers, OPTIMIZERS, "optimizer(s)"),
            "acts": _names(self.opts.acts, tuple(ACTS), "activation(s)"),
        }
        if self.opts.max_steps < 1:
            raise ValueError("train generator: max_steps must be at least 1")
        self.stats = TrainStats()

    def candidates(self, seed: int) -> Iterator[Program]:
        yield from (render_program(seed, a, self.opts, self.names) for a in itertools.count())

    def on_valid(self, program: Program) -> None:
        note = note_values(program)
        self.stats.produced += 1
        self.stats.models[note.get("model", "?")] += 1
        self.stats.optimizers[note.get("opt", "?")] += 1
