"""Normalization layers and activations (functional and ``nn`` module forms)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as TF

from torchsmith.generate.graph.ops.conv_pool import spatial_input
from torchsmith.generate.graph.ops.pointwise import Unary
from torchsmith.generate.graph.spec import need, op, register
from torchsmith.generate.graph.values import FLOAT_DTYPES, Val, dtype_src


def _dt(x: Val) -> str:
    return "" if x.dtype == "float32" else f", dtype={dtype_src(x.dtype)}"


# ----------------------------------------------------------------------------- activations


class Act(Unary):
    """An activation: ``F.f(x)`` or an ``nn`` module held in ``__init__``."""

    def __init__(self, name: str, forms, fn, module: str | None = None, **kw) -> None:
        super().__init__(name, forms, fn, **kw)
        self.family = "activation"
        self.module = module

    def build(self, b, x: Val, forms: tuple[str, ...] | None = None) -> None:
        if forms is None and self.module and b.rng.random() < 0.4:
            # the module spelling goes to this build only: the spec itself is shared by every
            # thread generating in the process and must never change
            forms = (f"{b.layer(self.tag, self.module)}({{x}})",)
        super().build(b, x, forms)


def _a(name: str, form: str, fn, module: str | None = None, **kw) -> None:
    register(Act(name, (form,), fn, module, **kw))


_a("relu", "F.relu({x})", TF.relu, "nn.ReLU()", keeps_exact=True)
_a("relu6", "F.relu6({x})", TF.relu6, "nn.ReLU6()", keeps_exact=True)
_a("leaky_relu", "F.leaky_relu({x}, 0.1)", lambda t: TF.leaky_relu(t, 0.1), "nn.LeakyReLU(0.1)")
_a("elu", "F.elu({x})", TF.elu, "nn.ELU()")
_a("selu", "F.selu({x})", TF.selu, "nn.SELU()")
_a("celu", "F.celu({x}, alpha=0.5)", lambda t: TF.celu(t, alpha=0.5), "nn.CELU(alpha=0.5)")
_a("gelu", "F.gelu({x})", TF.gelu, "nn.GELU()")
_a(
    "gelu_tanh",
    "F.gelu({x}, approximate='tanh')",
    lambda t: TF.gelu(t, approximate="tanh"),
    "nn.GELU(approximate='tanh')",
)
_a("silu", "F.silu({x})", TF.silu, "nn.SiLU()")
_a("mish", "F.mish({x})", TF.mish, "nn.Mish()")
_a(
    "softplus",
    "F.softplus({x}, beta=2.0)",
    lambda t: TF.softplus(t, beta=2.0),
    "nn.Softplus(beta=2.0)",
)
_a("softsign", "F.softsign({x})", TF.softsign, "nn.Softsign()")
_a(
    "hardtanh",
    "F.hardtanh({x}, -0.5, 1.5)",
    lambda t: TF.hardtanh(t, -0.5, 1.5),
    "nn.Hardtanh(-0.5, 1.5)",
    keeps_exact=True,
)
_a("hardsigmoid", "F.hardsigmoid({x})", TF.hardsigmoid, "nn.Hardsigmoid()")
_a("hardswish", "F.hardswish({x})", TF.hardswish, "nn.Hardswish()")
_a(
    "hardshrink",
    "F.hardshrink({x}, 0.3)",
    lambda t: TF.hardshrink(t, 0.3),
    "nn.Hardshrink(0.3)",
    keeps_exact=True,
)
_a("softshrink", "F.softshrink({x}, 0.3)", lambda t: TF.softshrink(t, 0.3), "nn.Softshrink(0.3)")
_a("tanhshrink", "F.tanhshrink({x})", TF.tanhshrink, "nn.Tanhshrink()")
_a("logsigmoid", "F.logsigmoid({x})", TF.logsigmoid, "nn.LogSigmoid()", bound=8.0)
_a(
    "threshold",
    "F.threshold({x}, 0.2, -1.0)",
    lambda t: TF.threshold(t, 0.2, -1.0),
    "nn.Threshold(0.2, -1.0)",
    keeps_exact=True,
)
_a("rrelu_eval", "F.rrelu({x}, training=False)", lambda t: TF.rrelu(t, training=False))


@op("prelu", "activation", ranks=(1, 5))
def _prelu(b, x: Val) -> None:
    n = 1
    if x.rank >= 2 and b.rng.random() < 0.5:
        n = x.shape[1]
    layer = b.layer("prelu", f"nn.PReLU({n}{_dt(x)})" if n > 1 else f"nn.PReLU({_dt(x)[2:]})")
    lo = min(0.25 * x.lo, x.lo) if x.lo < 0 else x.lo
    b.emit(f"{layer}({x.name})", x.shape, x.dtype, min(lo, 0.0), max(x.hi, 0.0), tag="prelu")


@op("glu", "activation", ranks=(1, 5))
def _glu(b, x: Val) -> None:
    dims = [i for i, s in enumerate(x.shape) if s % 2 == 0 and s > 0]
    need(bool(dims), "needs an even dim")
    d = b.rng.choice(dims)
    shape = tuple(s // 2 if i == d else s for i, s in enumerate(x.shape))
    b.emit(f"F.glu({x.name}, dim={d})", shape, x.dtype, min(x.lo, 0.0), max(x.hi, 0.0), tag="glu")


def _softmax(name: str) -> None:
    @op(name, "activation", ranks=(1, 5))
    def build(b, x: Val) -> None:
        d = b.rng.randrange(x.rank)
        n = x.shape[d]
        need(n >= 1, "empty")
        if name == "log_softmax":
            lo, hi = -(x.hi - x.lo) - math.log(n) - 1e-3, 0.0
        else:
            lo, hi = 0.0, 1.0
        module = {"softmax": "nn.Softmax", "log_softmax": "nn.LogSoftmax", "softmin": "nn.Softmin"}[
            name
        ]
        if b.rng.random() < 0.3:
            layer = b.layer(name.replace("_", ""), f"{module}(dim={d})")
            expr = f"{layer}({x.name})"
        else:
            expr = (
                f"F.{name}({x.name}, dim={d})" if b.rng.random() < 0.7 else f"{x.name}.{name}({d})"
            )
            if name == "softmin":
                expr = f"F.softmin({x.name}, dim={d})"
        b.emit(expr, x.shape, x.dtype, lo, hi, tag={"log_softmax": "logp"}.get(name, name))


for _n in ("softmax", "log_softmax", "softmin"):
    _softmax(_n)


# ----------------------------------------------------------------------------- normalization


def _z_bound(m: int) -> float:
    return math.sqrt(max(m - 1, 1)) * 1.001 + 1e-3


def _stats_input(b, x: Val) -> Val:
    """``x`` bounded so that a normalization's statistics over it stay accurate."""
    return b.bounded(x, 1e3 if x.dtype != "float16" else 100.0)


def _module_or_fn(b, x: Val, p: float, tag: str, module: str, fn_expr: str) -> str:
    """``<module>(x)`` with ``module`` held in ``__init__`` (probability ``p``), else ``fn_expr``."""
    if b.rng.random() < p:
        return f"{b.layer(tag, module)}({x.name})"
    return fn_expr


def _bn(nd: int) -> None:
    ranks = {1: (2, 3), 2: (4, 4), 3: (5, 5)}[nd]

    @op(
        f"batch_norm{nd}d",
        "norm",
        ranks=ranks,
        fresh_fn=spatial_input(max(nd, 1)) if nd > 1 else None,
    )
    def build(b, x: Val) -> None:
        c = x.shape[1]
        m = x.numel // max(c, 1)
        need(m > 1, "batch norm needs more than one value per channel")
        x = _stats_input(b, x)
        layer = b.layer("bn", f"nn.BatchNorm{nd}d({c}{_dt(x)})")
        hi = max(_z_bound(m), 2 * x.absmax / math.sqrt(0.9))
        b.emit(f"{layer}({x.name})", x.shape, x.dtype, -hi, hi, tag="bn")


for _nd in (1, 2, 3):
    _bn(_nd)


@op("layer_norm", "norm", ranks=(1, 5))
def _layer_norm(b, x: Val) -> None:
    k = 1 if x.rank == 1 or b.rng.random() < 0.6 else 2
    shape = x.shape[-k:]
    m = math.prod(shape)
    need(m >= 1, "empty")
    x = _stats_input(b, x)
    module = f"nn.LayerNorm({list(shape)}{_dt(x)})"
    expr = _module_or_fn(b, x, 0.6, "ln", module, f"F.layer_norm({x.name}, {tuple(shape)})")
    b.emit(expr, x.shape, x.dtype, -_z_bound(m), _z_bound(m), tag="ln")


@op("group_norm", "norm", ranks=(2, 5), fresh_fn=spatial_input(2))
def _group_norm(b, x: Val) -> None:
    c = x.shape[1]
    gs = [g for g in (1, 2, 3, 4, 8) if c % g == 0]
    g = b.rng.choice(gs)
    m = x.numel // max(x.shape[0], 1) // g
    need(m > 1, "group norm needs more than one value per group")
    x = _stats_input(b, x)
    layer = b.layer("gn", f"nn.GroupNorm({g}, {c}{_dt(x)})")
    b.emit(f"{layer}({x.name})", x.shape, x.dtype, -_z_bound(m), _z_bound(m), tag="gn")


@op("instance_norm", "norm", ranks=(3, 5), fresh_fn=spatial_input(2))
def _instance_norm(b, x: Val) -> None:
    nd = x.rank - 2
    c = x.shape[1]
    m = math.prod(x.shape[2:])
    need(m > 1, "instance norm needs more than one spatial element")
    x = _stats_input(b, x)
    if b.rng.random() < 0.5:
        affine = ", affine=True" if b.rng.random() < 0.5 else ""
        layer = b.layer("inorm", f"nn.InstanceNorm{nd}d({c}{affine}{_dt(x)})")
        expr = f"{layer}({x.name})"
    else:
        expr = f"F.instance_norm({x.name})"
    b.emit(expr, x.shape, x.dtype, -_z_bound(m), _z_bound(m), tag="inorm")


@op("rms_norm", "norm", ranks=(1, 5))
def _rms_norm(b, x: Val) -> None:
    n = x.shape[-1]
    need(n >= 1, "empty")
    x = _stats_input(b, x)
    module = f"nn.RMSNorm({n}, eps=1e-5{_dt(x)})"
    expr = _module_or_fn(b, x, 0.5, "rms", module, f"F.rms_norm({x.name}, ({n},), eps=1e-5)")
    hi = math.sqrt(n) * 1.001 + 1e-3
    b.emit(expr, x.shape, x.dtype, -hi, hi, tag="rms")


@op(
    "local_response_norm",
    "norm",
    ranks=(3, 5),
    dtypes=("float32", "float64"),
    fresh_fn=spatial_input(2, dtypes=("float32", "float64")),
)
def _lrn(b, x: Val) -> None:
    size = b.rng.randint(1, 4)
    x = b.bounded(x, 100.0)
    b.emit(
        f"F.local_response_norm({x.name}, {size})",
        x.shape,
        x.dtype,
        min(x.lo, 0.0),
        max(x.hi, 0.0),
        tag="lrn",
    )


@op("normalize", "norm", ranks=(1, 5))
def _normalize(b, x: Val) -> None:
    d = b.rng.randrange(x.rank)
    p = b.rng.choice([1.0, 2.0])
    b.emit(f"F.normalize({x.name}, p={p}, dim={d})", x.shape, x.dtype, -1.0, 1.0, tag="unit")


_ = (torch, FLOAT_DTYPES)
