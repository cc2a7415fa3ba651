"""The constraint table: which constraint an eager exception message says an op broke.

Each :class:`Rule` matches PyTorch's own error text (``shapes cannot be multiplied (2x10 and
2x10)``) and turns it into the constraint a user reads (``not row-column aligned: input has 10
features, weight expects 2``), with a family (matmul, broadcast, view, dtype, ...) that groups
invalid programs. :func:`match_constraint` is the only entry point; the op recorder in
:mod:`torchsmith.oracle.diagnose` supplies the op, its shapes and dtypes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Ctx:
    """What a rule may look at besides the regex match."""

    op: str
    shapes: list[tuple[int, ...]]
    dtypes: list[str]
    in_layer: bool
    int_range: tuple[int, int] | None


@dataclass(frozen=True)
class Rule:
    """``pattern`` is searched in the exception message; ``ops`` (if set) restricts the
    rule to those op names; ``explain`` turns the match into the constraint text."""

    pattern: re.Pattern[str]
    explain: Callable[[re.Match[str], _Ctx], str]
    ops: tuple[str, ...] | None = None
    family: str = "other"


def _rule(pattern: str, explain, ops=None, family: str = "other") -> Rule:
    return Rule(re.compile(pattern, re.S), explain, tuple(ops) if ops else None, family)


def _dtype_mismatch(m: re.Match[str], c: _Ctx) -> str:
    distinct = list(dict.fromkeys(c.dtypes))
    if len(distinct) >= 2:
        return "dtype mismatch: " + " vs ".join(distinct)
    return "dtype mismatch between inputs"


def _emb_index(m: re.Match[str], c: _Ctx) -> str:
    weight = next((s for s in c.shapes if len(s) == 2), None)
    if weight is not None and c.int_range is not None:
        return f"index out of range: table has {weight[0]} rows, indices span {c.int_range[0]}..{c.int_range[1]}"
    return "index out of range"


_LINEAR = ("F.linear", "F.bilinear")
_EMBEDDING = ("F.embedding", "torch.embedding", "F.embedding_bag", "torch.embedding_bag")

RULES: list[Rule] = [
    # --- matmul family
    _rule(r"shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)",
          lambda m, c: f"not row-column aligned: input has {m[2]} features, "
          f"{'layer' if c.in_layer else 'weight'} expects {m[3]}", _LINEAR, "matmul"),
    _rule(r"shapes cannot be multiplied", lambda m, c: "not row-column aligned", family="matmul"),
    _rule(r"Expected size for first two dimensions of batch2 tensor to be: \[(\d+), (\d+)\] but got: \[(\d+), (\d+)\]",
          lambda m, c: f"batch sizes differ: {m[1]} vs {m[3]}" if m[1] != m[3]
          else f"not row-column aligned: {m[2]} columns vs {m[4]} rows", family="matmul"),
    _rule(r"inconsistent tensor size, expected tensor \[(\d+)\] and src \[(\d+)\]",
          lambda m, c: f"vectors differ in length: {m[1]} vs {m[2]}", family="matmul"),
    _rule(r"size mismatch, got input \((.*?)\), mat \((.*?)\), vec \((.*?)\)",
          lambda m, c: f"not row-column aligned: matrix {m[2]} times vector {m[3]}", family="matmul"),
    _rule(r"subscript (\w) has size (\d+) for operand (\d+) which does not broadcast with previously seen size (\d+)",
          lambda m, c: f"einsum index {m[1]} is {m[4]} in one operand and {m[2]} in operand {m[3]}", family="matmul"),
    # --- broadcasting / expand
    _rule(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)",
          lambda m, c: f"shapes not broadcastable: dim {m[3]} is {m[1]} vs {m[2]}", family="broadcast"),
    _rule(r"The expanded size of the tensor \((-?\d+)\) must match the existing size \((\d+)\) at non-singleton dimension (\d+)",
          lambda m, c: f"cannot expand: dim {m[3]} has size {m[2]}, target {m[1]}", family="broadcast"),
    _rule(r"The shape of the mask \[(.*?)\] at index (\d+) does not match the shape of the indexed tensor \[(.*?)\]",
          lambda m, c: f"boolean mask [{m[1]}] does not match indexed shape [{m[3]}] at dim {m[2]}", family="index"),
    # --- view / reshape
    _rule(r"shape '\[(.*?)\]' is invalid for input of size (\d+)",
          lambda m, c: f"element count {m[2]} does not fit the requested shape [{m[1]}]", family="view"),
    _rule(r"view size is not compatible with input tensor's size and stride",
          lambda m, c: "needs contiguous memory: use reshape", family="view"),
    _rule(r"Provided sizes \[(.*?)\] don't multiply up to the size of dim (\d+) \((\d+)\)",
          lambda m, c: f"sizes [{m[1]}] do not multiply to {m[3]} (dim {m[2]})", family="view"),
    _rule(r"split_with_sizes expects split_sizes to sum exactly to (\d+)",
          lambda m, c: f"split sizes must sum to {m[1]}", family="view"),
    # --- conv / pooling
    _rule(r"Expected ([\w ()]+?) input to (\w+), but got input of size: \[(.*?)\]",
          lambda m, c: f"wrong number of dimensions: {m[2]} expects {m[1]} input, got "
          f"{len(m[3].split(',')) if m[3] else 0}-D [{m[3]}]", family="rank"),
    _rule(r"Expected (\d+)-dimensional input",
          lambda m, c: f"wrong number of dimensions: expects {m[1]}-D input", family="rank"),
    _rule(r"expected input\[(.*?)\] to have (\d+) channels, but got (\d+) channels",
          lambda m, c: f"channel mismatch: {'layer' if c.in_layer else 'weight'} expects {m[2]}, input has {m[3]}",
          family="channels"),
    _rule(r"input size per channel: \((.*?)\)\. Kernel size: \((.*?)\)\. Kernel size can't be greater",
          lambda m, c: f"kernel ({m[2]}) larger than padded input ({m[1]})", family="conv"),
    _rule(r"Kernel size can't be greater than actual input size",
          lambda m, c: "kernel larger than input", family="conv"),
    _rule(r"Calculated output size: \((.*?)\)\. Output size is too small",
          lambda m, c: f"input too small: output would be ({m[1]})", family="conv"),
    _rule(r"(?:Only|Expected|non-empty) ([\dD, and]+?) (?:\(batch mode\) )?(?:input )?(?:Tensors? )?"
          r"(?:supported|tensor expected|tensor, but got)",
          lambda m, c: f"wrong number of dimensions: expects {m[1]} input", family="rank"),
    _rule(r"expected (\d+D) input \(got (\d+D) input\)",
          lambda m, c: f"wrong number of dimensions: expects {m[1]}, got {m[2]}", family="rank"),
    # --- dims
    _rule(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)",
          lambda m, c: f"dim {m[3]} out of range for a {int(m[2]) + 1}-D tensor (valid {m[1]}..{m[2]})",
          family="dim"),
    _rule(r"too many indices for tensor of dimension (\d+)",
          lambda m, c: f"too many indices for a {m[1]}-D tensor", family="index"),
    _rule(r"number of dimensions in the tensor input does not match the length of the desired ordering",
          lambda m, c: "permute needs exactly one index per dimension", family="dim"),
    # --- dtype
    _rule(r"expected scalar type (\w+) but found (\w+)",
          lambda m, c: f"dtype mismatch: expected {m[1]}, found {m[2]}", family="dtype"),
    _rule(r"expected m1 and m2 to have the same dtype, but got: (.+?) != (.+?)$",
          lambda m, c: f"dtype mismatch: {m[1]} vs {m[2]}", family="dtype"),
    _rule(r"mat1 and mat2 must have the same dtype, but got (\w+) and (\w+)",
          lambda m, c: f"dtype mismatch: {m[1]} vs {m[2]}", family="dtype"),
    _rule(r"Input type \((\w+)\) and (bias|weight) type \((\w+)\) should be the same",
          lambda m, c: f"dtype mismatch: input {m[1]} vs {m[2]} {m[3]}", family="dtype"),
    _rule(r"RNN input dtype \(torch\.(\w+)\) does not match weight dtype \(torch\.(\w+)\)",
          lambda m, c: f"dtype mismatch: input {m[1]} vs weight {m[2]}", family="dtype"),
    _rule(r"not implemented for '(\w+)'",
          lambda m, c: f"dtype {m[1]} not supported by this op", family="dtype"),
    _rule(r"Subtraction, the `-` operator, with two bool tensors is not supported",
          lambda m, c: "bool tensors do not support `-` (use `^` or logical_xor)", family="dtype"),
    _rule(r"result type (\w+) can't be cast to the desired output type (\w+)",
          lambda m, c: f"result dtype {m[1]} can't be written into a {m[2]} output", family="dtype"),
    _rule(r"Input dtype must be either a floating point or complex dtype\. Got: (\w+)",
          lambda m, c: f"needs a floating-point input, got {m[1]}", family="dtype"),
    _rule(r"Low precision dtypes not supported\. Got (\w+)",
          lambda m, c: f"dtype {m[1]} not supported by this op", family="dtype"),
    _rule(r"Expected tensor for argument #\d+ '(\w+)' to have one of the following scalar types: ([\w, ]+); but got ([\w.]+)",
          lambda m, c: f"{m[1]} must be {m[2]}, got {m[3]}", family="dtype"),
    _rule(r"(?i)Expected dtype int32/int64 for index|expected target dtype to be (Long|Byte)",
          lambda m, c: "index/target must be an integer tensor", family="dtype"),
    _rule(r"(?i)same (?:scalar )?type|same dtype|dtypes? match|mixed dtype|same datatype|self\.dtype to be equal",
          _dtype_mismatch, family="dtype"),
    # --- indexing
    _rule(r"index (-?\d+) is out of bounds for dimension (\d+) with size (\d+)",
          lambda m, c: f"index {m[1]} out of bounds: dim {m[2]} has size {m[3]}", family="index"),
    _rule(r"index out of range in self", _emb_index, _EMBEDDING, "index"),
    _rule(r"index out of range in self", lambda m, c: "index out of range", family="index"),
    _rule(r"Target (-?\d+) is out of bounds",
          lambda m, c: f"class index {m[1]} out of bounds"
          + (f" for {c.shapes[0][-1]} classes" if c.shapes and c.shapes[0] else ""), family="index"),
    _rule(r"start \((-?\d+)\) \+ length \((\d+)\) exceeds dimension size \((\d+)\)",
          lambda m, c: f"slice {m[1]}..{int(m[1]) + int(m[2])} exceeds size {m[3]}", family="index"),
    _rule(r"selected index k out of range", lambda m, c: "k larger than the dimension", family="index"),
    # --- cat / stack
    _rule(r"Sizes of tensors must match except in dimension (\d+)\. Expected size (\d+) but got size (\d+) for tensor number (\d+)",
          lambda m, c: f"sizes must match except in cat dim {m[1]}: tensor {m[4]} has {m[3]}, expected {m[2]}",
          family="cat"),
    _rule(r"Tensors must have same number of dimensions: got (\d+) and (\d+)",
          lambda m, c: f"tensors have different numbers of dimensions: {m[1]} vs {m[2]}", family="cat"),
    _rule(r"stack expects each tensor to be equal size, but got \[(.*?)\] at entry (\d+) and \[(.*?)\] at entry (\d+)",
          lambda m, c: f"stack needs equal shapes: [{m[1]}] vs [{m[3]}]", family="cat"),
    # --- normalization
    _rule(r"Expected more than 1 value per channel when training",
          lambda m, c: "batch norm in training mode needs more than 1 value per channel", family="norm"),
    _rule(r"running_mean should contain (\d+) elements not (\d+)",
          lambda m, c: f"channel mismatch: norm layer has {m[2]} features, input has {m[1]} channels",
          family="channels"),
    _rule(r"Given normalized_shape=\[(.*?)\], expected input with shape \[\*, (.*?)\], but got input of size\s*\[(.*?)\]",
          lambda m, c: f"trailing dims [{m[3]}] do not end with normalized_shape [{m[1]}]", family="norm"),
    _rule(r"Expected number of channels in input to be divisible by num_groups",
          lambda m, c: "channels not divisible by num_groups", family="norm"),
    _rule(r"input\.size\(-1\) must be equal to input_size\. Expected (\d+), got (\d+)",
          lambda m, c: f"feature mismatch: layer expects input_size {m[1]}, input has {m[2]}",
          family="channels"),
    # --- padding
    _rule(r"Padding size should be less than the corresponding input dimension, but got: padding \((.*?)\) at dimension (\d+) of input \[(.*?)\]",
          lambda m, c: f"padding ({m[1]}) too large for dim {m[2]} of input [{m[3]}]", family="pad"),
    _rule(r"Padding size should be less than the corresponding input dimension",
          lambda m, c: "padding too large for the input", family="pad"),
    # --- device
    _rule(r"Expected all tensors to be on the same device, but found at least two devices, ([\w:]+) and ([\w:]+)",
          lambda m, c: f"tensors on different devices: {m[1]} vs {m[2]}", family="device"),
    _rule(r"Expected all tensors to be on the same device|Tensor on device (\w+) is not on the expected device (\w+)",
          lambda m, c: "tensors on different devices" + (f": {m[1]} vs {m[2]}" if m[1] else ""),
          family="device"),
    # --- losses, autograd, misc
    _rule(r"Expected input batch_size \((\d+)\) to match target batch_size \((\d+)\)",
          lambda m, c: f"batch size mismatch: input {m[1]} vs target {m[2]}", family="broadcast"),
    _rule(r"a leaf Variable that requires grad is being used in an in-place operation",
          lambda m, c: "in-place op on a leaf tensor that requires grad", family="autograd"),
    _rule(r"Trying to backward through the graph a second time",
          lambda m, c: "backward through a freed graph (needs retain_graph=True)", family="autograd"),
    _rule(r"with (\d+) elements cannot be converted to Scalar|Boolean value of Tensor with more than one value",
          lambda m, c: "needs a single-element tensor", family="other"),
    _rule(r"(\w+)\(\): argument '(\w+)' \(position (\d+)\) must be ([\w ,]+?), not (\w+)",
          lambda m, c: f"argument {m[2]} of {m[1]}() must be {m[4]}, got {m[5]}", family="type"),
    _rule(r"received an invalid combination of arguments",
          lambda m, c: "invalid combination of argument types", family="type"),
]  # fmt: skip


def match_constraint(
    op: str,
    message: str,
    shapes: list[tuple[int, ...]] | None = None,
    dtypes: list[str] | None = None,
    in_layer: bool = False,
    int_range: tuple[int, int] | None = None,
) -> tuple[str | None, str | None]:
    """``(constraint, family)`` from the first rule matching ``message`` (and ``op``)."""
    ctx = _Ctx(op, list(shapes or []), list(dtypes or []), in_layer, int_range)
    for rule in RULES:
        if rule.ops is not None and op not in rule.ops:
            continue
        m = rule.pattern.search(message)
        if m is None:
            continue
        try:
            return rule.explain(m, ctx), rule.family
        except Exception:  # a rule bug must not hide the diagnosis
            return None, rule.family
    return None, None
