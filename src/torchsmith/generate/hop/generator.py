"""``--generator hop`` (and ``family=hop`` in the mix): programs built around PyTorch's
higher-order ops and function transforms, the parts of ``torch.compile`` that trace a Python
function *as an argument* into a subgraph.

Kinds (the note ``hop=``), each with random bodies from ``bodies.py``:

``cond``          ``torch.cond`` on an exact predicate (a count of the input's signs, or a size
                  that differs between two calls), two branches of different chains, sometimes
                  a ``cond`` nested in a branch, one or two outputs;
``while_loop``    ``torch.while_loop`` with a counter bound that is a constant or comes from
                  data, carrying one or two tensors (bodies end in ``tanh``);
``scan``          ``torch._higher_order_ops.scan`` (a carry and per-step outputs, forward or
                  reversed, along dim 0 or 1);
``assoc_scan``    ``associative_scan`` with ``combine_mode="generic"`` (CPU) of an associative
                  combine (add, max, min, logaddexp, a product of values near 1);
``map``           ``torch._higher_order_ops.map`` over rows, with an extra operand;
``region``        a ``@torch.compiler.nested_compile_region`` function called 2-3 times;
``vmap``          ``torch.func.vmap`` over rows, the second operand batched or broadcast;
``grad``          ``torch.func.grad`` (or ``vjp``) of a chain's sum;
``flex``          ``flex_attention`` with a random ``score_mod`` (captured ``bias``/``rel``
                  tensors, index arithmetic) and a block mask (causal, window, prefix, document);
``checkpoint``    ``torch.utils.checkpoint`` (non-reentrant) of a chain, gradients judged
                  (``check_options = {"grad": True}``);
``nest``          one op inside another: ``cond`` in a ``scan`` body, a ``while_loop`` in a
                  ``cond`` branch, ``vmap`` of a ``cond`` (per-row predicates), a nested compile
                  region as a ``cond`` branch.

A share of the programs of :data:`GRAD_KINDS` have their gradients judged too
(``check_options = {"grad": True}``). Most ``scan`` and ``map`` programs declare ``dynamo.capture_scalar_outputs`` (see
:data:`SCALAR_READERS`). A program is a function ``fn`` of float tensors drawn from a seeded ``torch.Generator``; half the
non-flex programs have a second call with another leading size (``get_calls``: the compiled
function is reused or recompiled with dynamic shapes). Every choice comes from
``random.Random("torchsmith-hop:s:attempt")``: same seed, same bytes; candidates are
eager-checked (:class:`ValidatedFamily`). Notes: ``family=hop``, ``hop=``, ``calls=``.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator

from torchsmith.generate.family import FamilyStats, ValidatedFamily, note_values
from torchsmith.generate.hop import bodies
from torchsmith.generate.protocol import choose_names
from torchsmith.program.format import Program


@dataclasses.dataclass
class HopOptions:
    kinds: str | None = None  # comma-separated kinds (default: all)
    max_body: int = 4  # ops per body (1..max_body)
    max_tries: int = 8
    check_timeout: float = 60.0


@dataclasses.dataclass
class HopStats(FamilyStats):
    produced: int = 0
    kinds: Counter[str] = dataclasses.field(default_factory=Counter)


@dataclasses.dataclass
class Draft:
    """What a kind renders: module-level lines, the body of ``fn``, its parameters, and the
    inputs of one call as a function of the leading size ``r``."""

    body: list[str]
    params: str = "x, y"
    top: list[str] = dataclasses.field(default_factory=list)
    inputs: Callable[[int, int], str] | None = None
    sequence: bool = True  # may have a second call with another leading size
    check: dict[str, object] = dataclasses.field(default_factory=dict)


def _def(name: str, args: str, lines: list[str], indent: str = "    ") -> list[str]:
    return [f"{indent}def {name}({args}):", *[f"{indent}    {line}" for line in lines]]


def _body(rng: random.Random, names: list[str], opts: HopOptions, out: str = "h") -> list[str]:
    return bodies.chain(rng, names, rng.randint(1, opts.max_body), out)


def _cond(rng: random.Random, opts: HopOptions) -> Draft:
    pred = rng.choice(("(x > 0).sum() > x.numel() // 2", "x.shape[0] > 4", "(y < 0).sum() > 3"))
    two = rng.random() < 0.4
    ret = "h, h.sum(-1)" if two else "h"
    lines: list[str] = []
    for name in ("true_fn", "false_fn"):
        inner = _body(rng, ["a", "b"], opts)
        if name == "true_fn" and rng.random() < 0.25:  # a cond inside a branch
            lines += _def("inner_t", "c", _body(rng, ["c"], opts) + ["return h"], "    ")
            lines += _def("inner_f", "c", _body(rng, ["c"], opts) + ["return h"], "    ")
            inner += ["h = torch.cond((b > 0).sum() > 2, inner_t, inner_f, (h,))"]
        lines += _def(name, "a, b", [*inner, f"return {ret}"])
    lines.append(f"    out = torch.cond({pred}, true_fn, false_fn, (x, y))")
    lines.append("    return out")
    return Draft(lines)


def _while(rng: random.Random, opts: HopOptions) -> Draft:
    bound = rng.choice(("3", "2", "5", "(x > 0).sum() % 4"))
    both = rng.random() < 0.5
    body = _body(rng, ["a", "b"], opts)
    update_b = "torch.tanh(b + 0.5 * h)" if both else "b.clone()"  # no output may alias an input
    lines = [f"    n = torch.as_tensor({bound})"]
    lines += _def("cond_fn", "i, a, b", ["return i < n"])
    lines += _def("body_fn", "i, a, b", [*body, f"return i + 1, torch.tanh(h), {update_b}"])
    lines += ["    i, a, b = torch.while_loop(cond_fn, body_fn, (torch.tensor(0), x, y))"]
    lines += ["    return a, b, i"]
    return Draft(lines)


def _scan(rng: random.Random, opts: HopOptions) -> Draft:
    dim = rng.choice((0, 1))
    rev = rng.random() < 0.3
    init = "x[0]" if dim == 0 else "x[:, 0].contiguous()"  # init and carry: same strides
    body = _body(rng, ["carry", "xs"], opts)
    # the carry's squash: tanh and sigmoid save their output for backward, which under
    # gradients meets a known refusal (#195977); the other two keep the rest reachable
    squash = rng.choice(
        ("torch.tanh(h)", "torch.sigmoid(h)", "h.clamp(-2, 2)", "h / (1 + h.abs())")
    )
    lines = _def("comb", "carry, xs", [*body, f"h = {squash}", "return h, h * 2 + xs"])
    lines += [
        f"    last, ys = scan(comb, {init}, y, dim={dim}, reverse={rev})",
        "    return last, ys",
    ]
    return Draft(lines, top=["from torch._higher_order_ops.scan import scan"])


ASSOC = {
    "add": "a + b",
    "max": "torch.maximum(a, b)",
    "min": "torch.minimum(a, b)",
    "logaddexp": "torch.logaddexp(a, b)",
    "mul": "a * b",
}


def _assoc(rng: random.Random, opts: HopOptions) -> Draft:
    op = rng.choice(sorted(ASSOC))
    dim = rng.choice((0, 1, -1))
    rev = rng.random() < 0.3
    pre = _body(rng, ["x", "y"], opts, "u") if rng.random() < 0.5 else ["u = x"]
    lines = _def("combine", "a, b", [f"return {ASSOC[op]}"])
    lines += [f"    {line}" for line in pre]
    if op == "mul":  # products of values near 1
        lines += ["    u = torch.sigmoid(u) * 0.5 + 0.75"]
    lines += [
        f"    out = associative_scan(combine, u, {dim}, reverse={rev}, combine_mode='generic')",
        "    return out",
    ]
    return Draft(
        lines, top=["from torch._higher_order_ops.associative_scan import associative_scan"]
    )


def _map(rng: random.Random, opts: HopOptions) -> Draft:
    body = _body(rng, ["row", "extra"], opts)
    lines = _def("f", "row, extra", [*body, "return h"])
    lines += ["    return map_hop(f, x, y[0])"]
    return Draft(lines, top=["from torch._higher_order_ops.map import map as map_hop"])


def _region(rng: random.Random, opts: HopOptions) -> Draft:
    body = _body(rng, ["a", "b"], opts)
    top = ["", "", "@torch.compiler.nested_compile_region", "def block(a, b):"]
    top += [f"    {line}" for line in body] + ["    return h"]
    calls = rng.choice(
        (
            ["u = block(x, y)", "v = block(y, u)", "return u + v"],
            ["u = block(x, y)", "return block(u, x) * 2"],
            ["u = block(x, y)", "v = block(x * 0.5, y)", "w = block(v, u)", "return w, u"],
        )
    )
    return Draft([f"    {line}" for line in calls], top=top)


def _vmap(rng: random.Random, opts: HopOptions) -> Draft:
    body = _body(rng, ["r", "s"], opts)
    lines = _def("f", "r, s", [*body, "return h"])
    if rng.random() < 0.5:
        lines += ["    return torch.func.vmap(f)(x, y)"]
    else:
        lines += ["    return torch.func.vmap(f, in_dims=(0, None))(x, y[0])"]
    return Draft(lines)


def _grad(rng: random.Random, opts: HopOptions) -> Draft:
    body = _body(rng, ["a", "y"], opts)
    if rng.random() < 0.6:
        lines = _def("loss", "a", [*body, "return h.sum()"])
        lines += ["    return torch.func.grad(loss)(x)"]
    else:
        lines = _def("f", "a", [*body, "return h"])
        lines += [
            "    out, pull = torch.func.vjp(f, x)",
            "    return out, pull(torch.ones_like(out))[0]",
        ]
    return Draft(lines)


def _flex(rng: random.Random, opts: HopOptions) -> Draft:
    heads = rng.choice((1, 2, 4))
    length = rng.choice((8, 16, 32, 64))
    dim = rng.choice((8, 16, 32))
    mask = rng.choice(sorted(bodies.MASKS))
    score = bodies.score_mod(rng, rng.randint(1, 3))
    lines = _def("score_mod", "score, b, h, q, kv", score)
    call = "flex_attention(q, k, v, score_mod=score_mod"
    if bodies.MASKS[mask] is not None:
        lines += _def("mask_mod", "b, h, q, kv", [f"return {bodies.MASKS[mask]}"])
        lines += [
            f"    bm = create_block_mask(mask_mod, None, None, {length}, {length}, device='cpu')"
        ]
        call += ", block_mask=bm"
    lines += [f"    return {call})"]

    def inputs(_: int, seed: int) -> str:
        shape = f"(1, {heads}, {length}, {dim})"
        return (
            f"[_rand({shape}, {seed}), _rand({shape}, {seed + 1}), _rand({shape}, {seed + 2}),"
            f" _rand(({heads},), {seed + 3}), _rand(({length},), {seed + 4})]"
        )

    top = ["from torch.nn.attention.flex_attention import create_block_mask, flex_attention"]
    return Draft(lines, "q, k, v, bias, rel", top, inputs, sequence=False)


def _checkpoint(rng: random.Random, opts: HopOptions) -> Draft:
    body = _body(rng, ["a", "b"], opts)
    top = ["import torch.utils.checkpoint", "", "", "def block(a, b):"]
    top += [f"    {line}" for line in body] + ["    return h"]
    lines = ["    u = torch.utils.checkpoint.checkpoint(block, x, y, use_reentrant=False)"]
    lines += ["    return (u * u).sum(-1)"]
    return Draft(lines, top=top, check={"grad": True})


def _branches(rng: random.Random, opts: HopOptions, args: str, indent: str) -> list[str]:
    """Two branch functions ``br_t``/``br_f`` of ``args`` with different chains."""
    names = [a.strip() for a in args.split(",")]
    out: list[str] = []
    for name in ("br_t", "br_f"):
        out += _def(name, args, [*_body(rng, names, opts), "return h"], indent)
    return out


def _nest(rng: random.Random, opts: HopOptions) -> Draft:
    """One higher-order op inside another (compositions are where lowerings meet)."""
    # (grad through a cond fails in eager on 2.13: "Expected FakeTensor", so it is not drawn)
    form = rng.choice(("scan_cond", "cond_while", "vmap_cond", "region_cond"))
    lines = _branches(rng, opts, "a, b", "    ")
    top: list[str] = []
    check: dict[str, object] = {}
    if form == "scan_cond":
        top = ["from torch._higher_order_ops.scan import scan"]
        lines += _def(
            "comb",
            "carry, xs",
            [
                "h = torch.cond((xs > 0).sum() > 1, br_t, br_f, (carry, xs))",
                "h = torch.tanh(h)",
                "return h, h * 2",
            ],
        )
        lines += ["    last, ys = scan(comb, x[0], y)", "    return last, ys"]
    elif form == "cond_while":
        lines += _def("cond_fn", "i, a", ["return i < 3"])
        lines += _def("body_fn", "i, a", ["return i + 1, torch.tanh(br_t(a, a))"])
        lines += _def(
            "looped",
            "a, b",
            ["return torch.while_loop(cond_fn, body_fn, (torch.tensor(0), a))[1] + b"],
        )
        lines += ["    return torch.cond((x > 0).sum() > 4, looped, br_f, (x, y))"]
    elif form == "vmap_cond":
        lines += _def(
            "per_row", "r, s", ["return torch.cond((r > 0).sum() > 1, br_t, br_f, (r, s))"]
        )
        lines += ["    return torch.func.vmap(per_row)(x, y)"]
    else:  # region_cond
        top = ["", "", "@torch.compiler.nested_compile_region", "def block(a, b):"]
        top += [f"    {line}" for line in _body(rng, ["a", "b"], opts)] + ["    return h"]
        lines += ["    u = torch.cond((x > 0).sum() > 4, br_t, block, (x, y))"]
        lines += ["    return block(u, y) + u"]
    return Draft(lines, top=top, check=check)


KINDS: dict[str, Callable[[random.Random, HopOptions], Draft]] = {
    "cond": _cond,
    "while_loop": _while,
    "scan": _scan,
    "assoc_scan": _assoc,
    "map": _map,
    "region": _region,
    "vmap": _vmap,
    "grad": _grad,
    "flex": _flex,
    "checkpoint": _checkpoint,
    "nest": _nest,
}

#: Kinds Inductor lowers to a ``while_loop`` reading its index with ``.item()`` (scan, map):
#: without ``capture_scalar_outputs`` every one fails alike (known, pytorch#153437), so most
#: declare it, as a user working around it would, and the rest keep finding that bug.
SCALAR_READERS = ("scan", "map")
#: Kinds whose backward is drawn too (``check_options = {"grad": True}``) in a share of programs.
GRAD_KINDS = ("cond", "scan", "map", "region", "while_loop", "nest")  # flex: no CPU backward
GRAD_SHARE = 0.35
CAPTURE = "dynamo.capture_scalar_outputs"
CAPTURE_SHARE = 0.75

RAND = (
    "def _rand(shape, seed):\n"
    "    g = torch.Generator().manual_seed(seed)\n"
    "    return torch.randn(shape, generator=g)\n"
)


def render_program(
    seed: int,
    attempt: int,
    opts: HopOptions,
    kinds: list[str],
    settings: dict[str, object] | None = None,
    grads: bool = True,
) -> Program:
    """The candidate for ``seed`` and ``attempt`` (pure: no execution). ``settings`` are added
    to the program's ``compile_config``; ``grads=False`` keeps gradients out (the export path
    judges a forward). Neither changes a draw: the program's ops and inputs are the same."""
    rng = random.Random(f"torchsmith-hop:{seed}:{attempt}")
    kind = rng.choice(kinds)
    draft = KINDS[kind](rng, opts)
    cols = rng.choice((3, 4, 8))
    rows = rng.randint(3, 7)
    in_seed = rng.randrange(10_000)
    inputs = draft.inputs or (
        lambda r, s: f"[_rand(({r}, {cols}), {s}), _rand(({r}, {cols}), {s + 1})]"
    )
    calls = 2 if draft.sequence and rng.random() < 0.5 else 1
    dynamic = calls == 2 and rng.random() < 0.5
    lines = [f"# Generated by torchsmith hop: seed={seed} attempt={attempt} kind={kind}"]
    lines += ["import torch", *draft.top, "", "", RAND, ""]
    lines += [f"def fn({draft.params}):", *draft.body, "", ""]
    lines += ["def get_inputs():", f"    return {inputs(rows, in_seed)}", ""]
    if calls == 2:
        other = rng.choice([r for r in range(3, 9) if r != rows])
        lines += ["", "def get_calls():"]
        lines += [f"    return [{inputs(rows, in_seed)}, {inputs(other, in_seed + 7)}]", ""]
    if dynamic:
        lines += ["", 'compile_kwargs = {"dynamic": True}', ""]
    config: dict[str, object] = {}
    if kind in SCALAR_READERS and rng.random() < CAPTURE_SHARE:
        config[CAPTURE] = True
    config.update(settings or {})
    if config:
        lines += ["", f"compile_config = {config!r}", ""]
    check = dict(draft.check)
    if kind in GRAD_KINDS and rng.random() < GRAD_SHARE:
        check["grad"] = True  # the op's backward too: gradients judged against fp64
    if not grads:
        check.pop("grad", None)
    if check:
        lines += ["", f"check_options = {check!r}", ""]
    notes = (
        "family=hop",
        f"hop={kind}",
        f"calls={calls}",
        f"dynamic={dynamic}",
        f"grad={bool(check.get('grad'))}",
    )
    return Program("\n".join(lines), "fn", f"hop_{seed}", "generated", notes=notes)


class HopGenerator(ValidatedFamily):
    """The ``hop`` family (see the module docstring)."""

    Options = HopOptions
    name = "hop"
    LIST_OPTIONS = ("kinds",)

    def setup(self) -> None:
        self.kinds = choose_names(self.opts.kinds, tuple(KINDS), "hop generator", "kind(s)")
        if self.opts.max_body < 1:
            raise ValueError("hop generator: max_body must be at least 1")
        self.stats = HopStats()

    def candidates(self, seed: int) -> Iterator[Program]:
        yield from (render_program(seed, a, self.opts, self.kinds) for a in itertools.count())

    def on_valid(self, program: Program) -> None:
        self.stats.produced += 1
        self.stats.kinds[note_values(program).get("hop", "?")] += 1
