"""``rewrites`` templates for the opt-in batch fusions (``pre_grad_fusion_options`` /
``post_grad_fusion_options``, ``fx_passes/group_batch_fusion.py``): independent same-shape
linears, unary pointwise ops and layer norms (pre-grad), aten unary/binary ops and ``mm``s
(post-grad). In a share of programs one input has another dtype (the fusions group by shape
alone: ``bench/found/batch_aten_unary_post_grad_dtype.py``), and in a share of the pre-grad
pointwise programs in-place writes surround the batched calls (the pre-grad graph is not
functional: ``bench/found/batch_fusion_pre_grad_*.py``).

Programs declare the fusion they need in ``compile_config`` with a drawn
``min_fuse_set_size``. Split from :mod:`torchsmith.generate.rewrites.templates_freeze`.
"""

from __future__ import annotations

import random

from torchsmith.generate.rewrites.base import Spec, Template, fmt, pick_layout, tensor


def batch_linear(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True)
    n = rng.randint(2, 5)
    fin, fout = rng.choice((4, 8)), rng.choice((3, 6))
    bias = rng.random() < 0.7
    s.init.append(
        f"self.ls = nn.ModuleList([nn.Linear({fin}, {fout}, bias={bias}) for _ in range({n})])"
    )
    rows = rng.choice((1, 2, 4))
    if target == "batch_linear_lhs":
        x = s.add_input("x", tensor(rng, [rows, fin], "float32"))
        ys = [f"self.ls[{i}]({x})" for i in range(n)]
    else:
        xs = [s.add_input(f"x{i}", tensor(rng, [rows, fin], "float32")) for i in range(n)]
        ys = [f"self.ls[{i}]({xi})" for i, xi in enumerate(xs)]
    s.ret = rng.choice((f"torch.stack([{', '.join(ys)}])", f"torch.cat([{', '.join(ys)}], dim=1)"))
    s.config = {
        "inductor.pre_grad_fusion_options": {target: {"min_fuse_set_size": rng.randint(2, n)}}
    }
    s.note(n=n, bias=bias)
    return s


def _batch_dtypes(rng: random.Random, n: int, p: float = 0.3) -> list[str]:
    """``n`` dtypes for a batch fusion's inputs: in a share ``p`` of programs one differs (the
    unary batch fusions group by shape alone: bench/found/batch_aten_unary_post_grad_dtype.py)."""
    dts = ["float32"] * n
    if rng.random() < p:
        dts[rng.randrange(n)] = rng.choice(("float16", "bfloat16", "float64"))
    return dts


#: What each pre-grad pointwise batch fusion batches (``{}``: the tensor).
POINTWISE_CALLS = {
    "batch_tanh": "torch.tanh({})",
    "batch_sigmoid": "torch.sigmoid({})",
    "batch_relu": "F.relu({})",
    "batch_clamp": "torch.clamp({}, min=-0.5, max=0.75)",
    "batch_nan_to_num": "torch.nan_to_num({}, nan=0.0)",
}


def _batch_inplace(rng: random.Random, target: str, s: Spec, n: int, shape: list[int]) -> None:
    """The batched calls with in-place writes around them (the pre-grad graph is not
    functional): each call after ``x.mul_(c)`` must see the update (the fusion inserts the stacked
    op before the group's first member), and ``F.relu(h, inplace=True)`` must update ``h``
    (the fusion runs it on the stacked copy): ``bench/found/batch_fusion_pre_grad_*.py``."""
    x = s.add_input("x0", tensor(rng, shape, "float32", pick_layout(rng, 2)))
    if target == "batch_relu" and rng.random() < 0.5:
        s.body.append(f"hs = [{x} * {fmt(rng.choice((1.0, 0.5, -2.0)))} + i for i in range({n})]")
        s.body.append("rs = [F.relu(h, inplace=True) for h in hs]")
        s.ret = "torch.stack([h + r for h, r in zip(hs, rs)])"
        s.note(n=n, inplace="relu_inplace")
        return
    call = POINTWISE_CALLS[target]
    s.body.append(f"h = {x}.clone()")
    s.body.append("ys = []")
    s.body.append(f"for _ in range({n}):")
    s.body.append(f"    ys.append({call.format('h')})")
    s.body.append(f"    h.{rng.choice(('mul_', 'add_'))}({fmt(rng.choice((0.5, -0.75, 1.5)))})")
    s.ret = "torch.stack(ys)"
    s.note(n=n, inplace="update_between_calls")


def batch_pointwise(rng: random.Random, target: str) -> Spec:
    s = Spec(module=target == "batch_layernorm")
    n = rng.randint(2, 5)
    if target != "batch_layernorm" and rng.random() < 0.3:
        _batch_inplace(rng, target, s, n, [rng.choice((1, 3, 4)), rng.choice((5, 8))])
        s.config = {
            "inductor.pre_grad_fusion_options": {target: {"min_fuse_set_size": rng.randint(2, n)}}
        }
        return s
    shape = [rng.choice((1, 3, 4)), rng.choice((5, 8))]
    dts = _batch_dtypes(rng, n, 0.0 if target == "batch_layernorm" else 0.3)
    xs = [
        s.add_input(f"x{i}", tensor(rng, shape, dt, pick_layout(rng, 2)))
        for i, dt in enumerate(dts)
    ]
    if target == "batch_layernorm":
        s.init.append(f"self.ns = nn.ModuleList([nn.LayerNorm({shape[-1]}) for _ in range({n})])")
        ys = [f"self.ns[{i}]({x})" for i, x in enumerate(xs)]
    else:
        call = POINTWISE_CALLS[target]
        ys = [call.format(x) for x in xs]
    joined = (f"torch.stack([{', '.join(ys)}])", f"torch.cat([{', '.join(ys)}])")
    mixed = len(set(dts)) > 1  # a stack would promote the odd one and hide its dtype
    s.ret = f"({', '.join(ys)})" if mixed else rng.choice(joined)
    s.config = {
        "inductor.pre_grad_fusion_options": {target: {"min_fuse_set_size": rng.randint(2, n)}}
    }
    s.note(n=n, mixed_dtypes=mixed)
    return s


#: The post-grad (aten) batch fusions: what each batches.
BATCH_ATEN = {
    "batch_aten_tanh": "torch.tanh({0})",
    "batch_aten_sigmoid": "torch.sigmoid({0})",
    "batch_aten_relu": "torch.relu({0})",
    "batch_aten_add": "torch.add({0}, {1}{alpha})",
    "batch_aten_sub": "torch.sub({0}, {1}{alpha})",
    "batch_aten_mul": "torch.mul({0}, {1})",
    "batch_aten_div": "torch.div({0}, {1})",
    "batch_linear_post_grad": "torch.mm({0}, {1})",
}


def batch_aten(rng: random.Random, target: str) -> Spec:
    """Independent same-shape ops the opt-in post-grad batch fusions stack into one: unary and
    binary pointwise ops (``alpha`` in a share: #195442 drops it for ``sub``) and ``mm``s
    (#197069: grouped without their dtype), one input of another dtype in a share."""
    s = Spec()
    n = rng.randint(2, 6)
    shape = [rng.choice((1, 3, 4)), rng.choice((5, 8))]
    dts = _batch_dtypes(rng, n)
    alpha = f", alpha={fmt(rng.choice((2, 0.5, -1)))}" if rng.random() < 0.4 else ""
    ys = []
    other = list(reversed(shape)) if target == "batch_linear_post_grad" else shape
    for i, dt in enumerate(dts):
        a = s.add_input(f"a{i}", tensor(rng, shape, dt, pick_layout(rng, 2)))
        b = ""
        if "{1}" in BATCH_ATEN[target]:
            b = s.add_input(f"b{i}", tensor(rng, other, dt, positive=target == "batch_aten_div"))
        ys.append(BATCH_ATEN[target].format(a, b, alpha=alpha))
    s.ret = f"({', '.join(ys)})"
    opts = {"min_fuse_set_size": rng.randint(2, n)}
    s.config = {"inductor.post_grad_fusion_options": {target: opts}}
    s.note(n=n, mixed_dtypes=len(set(dts)) > 1, alpha=bool(alpha) and "alpha" in BATCH_ATEN[target])
    return s


TEMPLATES_BATCH: tuple[Template, ...] = (
    Template("batch_linear", ("batch_linear", "batch_linear_lhs"), batch_linear),
    Template("batch_aten", tuple(BATCH_ATEN), batch_aten),
    Template(
        "batch_pointwise",
        (
            "batch_tanh",
            "batch_sigmoid",
            "batch_relu",
            "batch_clamp",
            "batch_nan_to_num",
            "batch_layernorm",
        ),
        batch_pointwise,
    ),
)
