"""``rewrites`` templates for Inductor's quantization passes (``fx_passes/quantization.py``):
the PT2E graphs X86InductorQuantizer's ``convert_pt2e`` leaves, written with the
``quantized_decomposed`` ops directly (no torchao needed), so the passes see what they match.

* ``qconv_qlinear``: a uint8-quantized activation into a conv, a transposed conv or a linear of
  an int8 weight dequantized per channel, then post-ops: an ``add`` of another tensor (a graph
  input, a buffer, a computed one, a dequantized one; ``alpha`` sometimes), a unary op, a
  requantization. Under freezing the weight is prepacked and the post-ops fused into oneDNN.
* ``qpool_cat_reshape``: ``dequantize`` -> ``max_pool2d`` / ``cat`` / ``reshape`` ->
  ``quantize`` on uint8 tensors, the output's parameters the input's or not (another scale,
  zero point, a narrower range, int8), and the ``.tensor`` overloads (scale and zero point as
  tensors), which Inductor lowers itself.

Drawn on purpose where the passes were wrong (``bench/found/quant_*.py``): the add's other
operand a graph input or buffer (fused in place), ``alpha``, the per-channel axis 1 and
transposed convs, output qparams unlike the input's. Activations use the reduced range [0,
127]: on a CPU without VNNI, oneDNN's u8 x s8 products saturate at full range, a documented
difference (X86InductorQuantizer's ``reduce_range``), never a finding. Forwards cast to
float32 first: the quantize ops take float32 only, so the checker's float64 run stays valid.
"""

from __future__ import annotations

import random

from torchsmith.generate.rewrites.base import Spec, Template, fmt
from torchsmith.generate.rewrites.templates_freeze import FREEZE

_QD = "torch.ops.quantized_decomposed"
#: A uint8 activation's parameters (scale, zero point, quant_min, quant_max): reduced range.
_ACT = ((0.02, 64, 0, 127), (0.05, 10, 0, 127), (0.01, 0, 0, 127))
_UNARY = ("torch.relu(h)", "F.relu6(h)", "F.hardtanh(h, -0.5, 0.5)", "F.silu(h)", "F.gelu(h)")


def _dq_q(x: str, scale: float, zp: int, lo: int, hi: int, dtype: str = "uint8") -> str:
    """``dequantize(quantize(x))`` with one set of parameters (a fake-quantized activation)."""
    q = f"{_QD}.quantize_per_tensor({x}, {scale}, {zp}, {lo}, {hi}, torch.{dtype})"
    return f"{_QD}.dequantize_per_tensor({q}, {scale}, {zp}, {lo}, {hi}, torch.{dtype})"


def qconv_qlinear(rng: random.Random, target: str) -> Spec:
    s = Spec(module=True, config=dict(FREEZE))
    s.imports.add("torch.ao.quantization.fx._decomposed")
    kind = rng.choice(("linear", "linear", "conv", "conv", "conv_transpose"))
    cin, cout = rng.choice((3, 4, 8, 16)), rng.choice((4, 8, 16))
    k = rng.choice((1, 3))
    # the per-channel axis: the output channels (0 for conv/linear, 1 for a transposed conv's
    # weight) most often, the other axis sometimes
    own = 1 if kind == "conv_transpose" else 0
    axis = own if rng.random() < 0.7 else 1 - own
    if kind == "linear":
        wshape = (cout, cin)
    elif kind == "conv":
        wshape = (cout, cin, k, k)
    else:
        wshape = (cin, cout, k, k)
    s.init += [
        "g = torch.Generator().manual_seed(0)",
        f'self.register_buffer("wq", torch.randint(-127, 128, {fmt(wshape)}, generator=g)'
        ".to(torch.int8))",
        f'self.register_buffer("ws", torch.rand({wshape[axis]}, generator=g) * 0.01 + 0.001)',
        f'self.register_buffer("wzp", torch.zeros({wshape[axis]}, dtype=torch.int64))',
    ]
    bias = rng.random() < 0.6
    if bias:
        s.init.append(f'self.register_buffer("b", torch.randn({cout}, generator=g))')
    act = rng.choice(_ACT)
    if kind == "linear":
        rank = rng.choice((2, 2, 3))
        xshape = (4, cin) if rank == 2 else (2, 3, cin)
        oshape = (*xshape[:-1], cout)
    else:
        side = rng.choice((5, 6, 8))
        xshape = (1, cin, side, side)
        oshape = None
    x = s.add_input("x", f"torch.rand({fmt(xshape)}, generator=g)")
    s.body.append(f"xd = {_dq_q(f'{x}.float()', *act)}")
    s.body.append(
        f"w = {_QD}.dequantize_per_channel(self.wq, self.ws, self.wzp, {axis}, -128, 127,"
        " torch.int8)"
    )
    b = "self.b" if bias else "None"
    if kind == "linear":
        s.body.append(f"h = F.linear(xd, w, {b})")
    elif kind == "conv":
        pad = rng.choice((0, 1)) if k > 1 else 0
        s.body.append(f"h = F.conv2d(xd, w, {b}, padding={pad})")
        oshape = (1, cout, side + 2 * pad - k + 1, side + 2 * pad - k + 1)
    else:
        stride = rng.choice((1, 1, 2))
        out_pad = 1 if stride == 2 and rng.random() < 0.5 else 0
        s.body.append(
            f"h = F.conv_transpose2d(xd, w, {b}, stride={stride}, output_padding={out_pad})"
        )
        o = (side - 1) * stride + k + out_pad
        oshape = (1, cout, o, o)
    other_kind = rng.choice(("none", "input", "input", "buffer", "computed", "dequantized"))
    if other_kind != "none":
        if other_kind == "buffer":
            s.init.append(f'self.register_buffer("c", torch.randn({fmt(oshape)}, generator=g))')
            other = "self.c"
        else:
            y = s.add_input("y", f"torch.randn({fmt(oshape)}, generator=g)")
            other = {
                "input": f"{y}.float()",
                "computed": f"torch.sin({y}.float())",
                "dequantized": _dq_q(f"{y}.float()", 0.05, 64, 0, 127),
            }[other_kind]
        alpha = rng.choice((None, None, 2.0, 0.5))
        add = f"torch.add(h, {other}, alpha={alpha})" if alpha else f"h + {other}"
        s.body.append(f"h = {add}")
        s.note(alpha=alpha)
    if rng.random() < 0.4:
        s.body.append(f"h = {rng.choice(_UNARY)}")
    requant = rng.random() < 0.3
    if requant:
        s.body.append(f"h = {_dq_q('h', 0.05, 64, 0, 127)}")
    s.ret = "h"
    s.note(op=kind, axis=axis, bias=bias, other=other_kind, requant=requant)
    s.expect = (
        "inductor:qconv_weight_prepack_matcher_count",
        "inductor:qlinear_weight_prepack_matcher_count",
    )
    return s


def qpool_cat_reshape(rng: random.Random, target: str) -> Spec:
    s = Spec()
    s.imports.add("torch.ao.quantization.fx._decomposed")
    op = rng.choice(("max_pool2d", "cat", "reshape"))
    scale, zp = rng.choice(((0.1, 10), (0.1, 0), (0.05, 64)))
    x = s.add_input("x", "torch.randint(0, 255, (1, 4, 8, 8), generator=g, dtype=torch.uint8)")
    tensor_overload = rng.random() < 0.3

    def dq(t: str) -> str:
        return f"{_QD}.dequantize_per_tensor.default({t}, {scale}, {zp}, 0, 255, torch.uint8)"

    if op == "max_pool2d":
        s.body.append(f"h = F.max_pool2d({dq(x)}, 2)")
    elif op == "cat":
        s.body.append(f"h = torch.cat([{dq(x)}, {dq(f'{x}.flip(-1)')}], 1)")
    else:
        s.body.append(f"h = {dq(x)}.reshape(4, 64)")
    # the output's parameters: the input's most often (what the passes assume), else another
    # scale, zero point, a narrower range, or int8
    out = rng.choice(("same", "same", "scale", "zero_point", "range", "int8"))
    oscale, ozp, lo, hi, dt = scale, zp, 0, 255, "uint8"
    if out == "scale":
        oscale = scale / 2
    elif out == "zero_point":
        ozp = 0 if zp else 5
    elif out == "range":
        hi = 127
    elif out == "int8":
        ozp, lo, hi, dt = 0, -128, 127, "int8"
    if tensor_overload:
        sc = s.add_input("scale", f"torch.tensor({oscale})")
        z = s.add_input("zero_point", f"torch.tensor({ozp})")
        s.ret = f"{_QD}.quantize_per_tensor.tensor(h, {sc}, {z}, {lo}, {hi}, torch.{dt})"
    else:
        s.ret = f"{_QD}.quantize_per_tensor.default(h, {oscale}, {ozp}, {lo}, {hi}, torch.{dt})"
    s.note(op=op, out_params=out, tensor_overload=tensor_overload)
    return s


TEMPLATES_QUANT: tuple[Template, ...] = (
    Template(
        "qconv_qlinear",
        (
            "_register_qconv_weight_prepack",
            "_register_qlinear_weight_prepack",
            "_register_qconv_binary_fusion",
            "_register_qlinear_binary_fusion",
            "_register_qconv_unary_fusion",
            "_register_qlinear_unary_fusion",
            "_register_dequant_promotion",
        ),
        qconv_qlinear,
    ),
    Template(
        "qpool_cat_reshape",
        (
            "_register_quantization_maxpool2d",
            "_register_quantization_cat",
            "_register_quantization_reshape",
        ),
        qpool_cat_reshape,
    ),
)
