"""Tests for torchsmith.oracle.diagnose: which op broke which constraint in an invalid program."""

from __future__ import annotations

import copy
import json
import textwrap

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from torchsmith.oracle.diagnose import (
    InvalidEvidence,
    OpRecorder,
    describe_arg,
    diagnose,
    match_constraint,
    op_name,
)

MARK = "# <-"

S2 = """
import torch

class MatrixModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mm_layer = torch.nn.Linear(10, 10)

    def forward(self, x1, inp):
        v1 = torch.mm(x1, inp)  # <-
        v2 = v1 + inp
        return v2

def run(cols=10):
    x1 = torch.randn(2, cols)
    inp = torch.randn(2, 10)
    return MatrixModel()(x1, inp)
"""


def load(tmp_path, source: str) -> tuple[dict, str, str]:
    """Write ``source`` to a file and exec it under that filename; returns the
    namespace, the filename and the expected ``user_line`` (the line marked ``# <-``)."""
    source = textwrap.dedent(source)
    path = tmp_path / "prog.py"
    path.write_text(source)
    namespace: dict = {"__name__": "prog"}
    exec(compile(source, str(path), "exec"), namespace)
    expected = None
    for lineno, line in enumerate(source.splitlines(), 1):
        if MARK in line:
            expected = f"prog.py:{lineno}: {line.strip()}"
    return namespace, str(path), expected


def program(init: str, forward: str, inputs: str) -> str:
    """A one-model program whose ``run()`` builds the model and calls it."""
    init = textwrap.indent(textwrap.dedent(init).strip() or "pass", " " * 8)
    forward = textwrap.indent(textwrap.dedent(forward).strip(), " " * 8)
    return (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
        "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        f"{init}\n\n    def forward(self, x):\n{forward}\n\n"
        f"def run():\n    torch.manual_seed(0)\n    return M()({inputs})\n"
    )


def test_s2_reference_case(tmp_path):
    ns, filename, line = load(tmp_path, S2)
    ev = diagnose(ns["run"], filename)
    assert ev is not None
    assert ev.op == "torch.mm"
    assert ev.args == ["[2, 10] float32", "[2, 10] float32"]
    assert ev.kwargs == {}
    assert ev.exc_type == "RuntimeError"
    assert ev.constraint == "not row-column aligned"
    assert "`torch.mm` got `[2, 10]` and `[2, 10]`" in ev.summary
    assert "not row-column aligned" in ev.summary
    assert ev.summary == (
        "`torch.mm` got `[2, 10]` and `[2, 10]`: not row-column aligned "
        "(mat1 and mat2 shapes cannot be multiplied (2x10 and 2x10))"
    )
    assert ev.user_line == line == "prog.py:10: v1 = torch.mm(x1, inp)  # <-"
    assert ev.module is None  # the program's own model is not a layer


def test_s2_fixed_is_valid(tmp_path):
    ns, filename, _ = load(tmp_path, S2)
    assert diagnose(lambda: ns["run"](cols=2), filename) is None
    fixed = S2.replace("torch.randn(2, cols)", "torch.randn(2, 2)")
    ns2, filename2, _ = load(tmp_path, fixed)
    assert diagnose(ns2["run"], filename2) is None


def test_layer_channel_mismatch_names_module(tmp_path):
    src = program(
        "self.conv = nn.Conv2d(3, 8, 3)",
        f"return self.conv(x)  {MARK}",
        "torch.randn(1, 4, 8, 8)",
    )
    ns, filename, line = load(tmp_path, src)
    ev = diagnose(ns["run"], filename)
    assert ev is not None
    assert ev.op == "F.conv2d"
    assert ev.args[:2] == ["[1, 4, 8, 8] float32", "[8, 3, 3, 3] float32"]
    assert ev.constraint == "channel mismatch: layer expects 3, input has 4"
    assert ev.module is not None and ev.module.startswith("self.conv (nn.Conv2d(3, 8")
    assert ev.user_line == line
    assert "`F.conv2d` got `[1, 4, 8, 8]`, `[8, 3, 3, 3]`" in ev.summary


def test_nested_layer_path(tmp_path):
    src = program(
        "self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(5, 2))",
        f"return self.block(x)  {MARK}",
        "torch.randn(3, 4)",
    )
    ns, filename, line = load(tmp_path, src)
    ev = diagnose(ns["run"], filename)
    assert ev.op == "F.linear"
    assert ev.module.startswith("self.block.2 (nn.Linear(in_features=5")
    assert ev.constraint == "not row-column aligned: input has 4 features, layer expects 5"
    assert ev.user_line == line


# (init, forward, inputs, op, args prefix, constraint) -- the forward line that
# breaks the constraint is marked so user_line can be checked.
CASES = {
    "bmm": ("", "return torch.bmm(x, x)", "torch.randn(2, 3, 4)", "torch.bmm",
            ["[2, 3, 4] float32", "[2, 3, 4] float32"], "not row-column aligned: 4 columns vs 3 rows"),
    "bmm_batch": ("", "return torch.bmm(x, torch.randn(3, 4, 5))", "torch.randn(2, 3, 4)",
                  "torch.bmm", ["[2, 3, 4] float32", "[3, 4, 5] float32"], "batch sizes differ: 2 vs 3"),
    "matmul_op": ("", "return x @ torch.randn(4, 5)", "torch.randn(2, 3)", "torch.matmul",
                  ["[2, 3] float32", "[4, 5] float32"], "not row-column aligned"),
    "addmm": ("", "return torch.addmm(torch.zeros(2, 2), x, x)", "torch.randn(2, 3)", "torch.addmm",
              ["[2, 2] float32", "[2, 3] float32", "[2, 3] float32"], "not row-column aligned"),
    "baddbmm": ("", "return torch.baddbmm(torch.zeros(2, 3, 4), x, x)", "torch.randn(2, 3, 4)",
                "torch.baddbmm", ["[2, 3, 4] float32"], "not row-column aligned: 4 columns vs 3 rows"),
    "dot": ("", "return torch.dot(x, torch.ones(4))", "torch.randn(3)", "torch.dot",
            ["[3] float32", "[4] float32"], "vectors differ in length: 3 vs 4"),
    "linear_layer": ("self.fc = nn.Linear(10, 4)", "return self.fc(x)", "torch.randn(2, 5)", "F.linear",
                     ["[2, 5] float32", "[4, 10] float32", "[4] float32"],
                     "not row-column aligned: input has 5 features, layer expects 10"),
    "broadcast": ("", "return x + torch.ones(2, 4)", "torch.randn(2, 3)", "torch.add",
                  ["[2, 3] float32", "[2, 4] float32"], "shapes not broadcastable: dim 1 is 3 vs 4"),
    "broadcast_mul": ("", "return torch.mul(x, torch.ones(5, 3))", "torch.randn(2, 3)", "torch.mul",
                      ["[2, 3] float32", "[5, 3] float32"], "shapes not broadcastable: dim 0 is 2 vs 5"),
    "expand": ("", "return x.expand(4, 4)", "torch.randn(2, 3)", "Tensor.expand",
               ["[2, 3] float32", "4", "4"], "cannot expand: dim 1 has size 3, target 4"),
    "view": ("", "return x.view(4, 2)", "torch.randn(2, 3)", "Tensor.view",
             ["[2, 3] float32", "4", "2"], "element count 6 does not fit the requested shape [4, 2]"),
    "reshape": ("", "return torch.reshape(x, (4, -1, 5))", "torch.randn(2, 3)", "torch.reshape",
                ["[2, 3] float32", "(4, -1, 5)"], "element count 6 does not fit the requested shape [4, -1, 5]"),
    "view_noncontig": ("", "return x.t().view(6)", "torch.randn(2, 3)", "Tensor.view",
                       ["[3, 2] float32", "6"], "needs contiguous memory: use reshape"),
    "conv_rank": ("self.conv = nn.Conv2d(3, 8, 3)", "return self.conv(x)", "torch.randn(3)", "F.conv2d",
                  ["[3] float32"], "wrong number of dimensions: conv2d expects 3D (unbatched) or 4D (batched) input, got 1-D [3]"),
    "conv_kernel": ("self.conv = nn.Conv2d(3, 8, 5)", "return self.conv(x)", "torch.randn(1, 3, 2, 2)",
                    "F.conv2d", ["[1, 3, 2, 2] float32"], "kernel (5 x 5) larger than padded input (2 x 2)"),
    "conv1d_functional": ("", "return F.conv1d(x, torch.randn(8, 3, 3))", "torch.randn(1, 4, 8)",
                          "F.conv1d", ["[1, 4, 8] float32", "[8, 3, 3] float32"],
                          "channel mismatch: weight expects 3, input has 4"),
    "pool_small": ("self.pool = nn.MaxPool2d(5)", "return self.pool(x)", "torch.randn(1, 1, 2, 2)",
                   "F.max_pool2d", ["[1, 1, 2, 2] float32", "5"], "input too small: output would be (1x0x0)"),
    "dim_sum": ("", "return x.sum(2)", "torch.randn(2, 3)", "torch.sum",
                ["[2, 3] float32", "2"], "dim 2 out of range for a 2-D tensor (valid -2..1)"),
    "dim_softmax": ("", "return F.softmax(x, dim=3)", "torch.randn(2, 3)", "F.softmax",
                    ["[2, 3] float32"], "dim 3 out of range for a 2-D tensor (valid -2..1)"),
    "dtype_mm": ("", "return torch.mm(x, x.double())", "torch.randn(2, 2)", "torch.mm",
                 ["[2, 2] float32", "[2, 2] float64"], "dtype mismatch: float vs double"),
    "dtype_bmm": ("", "return torch.bmm(x, x.double())", "torch.randn(1, 2, 2)", "torch.bmm",
                  ["[1, 2, 2] float32", "[1, 2, 2] float64"], "dtype mismatch: expected Float, found Double"),
    "dtype_linear": ("self.fc = nn.Linear(2, 2)", "return self.fc(x)", "torch.ones(2, 2, dtype=torch.long)",
                     "F.linear", ["[2, 2] int64", "[2, 2] float32"], "dtype mismatch: Long vs Float"),
    "dtype_conv": ("self.conv = nn.Conv2d(3, 8, 3)", "return self.conv(x)",
                   "torch.randn(1, 3, 8, 8, dtype=torch.float64)", "F.conv2d", ["[1, 3, 8, 8] float64"],
                   "dtype mismatch: input double vs bias float"),
    "dtype_not_impl": ("", "return x.softmax(0)", "torch.ones(2, dtype=torch.int32)", "torch.softmax",
                       ["[2] int32", "0"], "dtype Int not supported by this op"),
    "dtype_cast": ("", "return x.add_(torch.ones(2))", "torch.ones(2, dtype=torch.long)", "Tensor.add_",
                   ["[2] int64", "[2] float32"], "result dtype Float can't be written into a Long output"),
    "dtype_mean": ("", "return x.mean()", "torch.arange(3)", "torch.mean",
                   ["[3] int64"], "needs a floating-point input, got Long"),
    "index": ("", "return x[5]", "torch.randn(3)", "[]",
              ["[3] float32", "5"], "index 5 out of bounds: dim 0 has size 3"),
    "index_tensor": ("", "return torch.gather(x, 0, torch.tensor([5]))", "torch.randn(3)", "torch.gather",
                     ["[3] float32", "0", "[1] int64"], "index 5 out of bounds: dim 0 has size 3"),
    "embedding": ("self.emb = nn.Embedding(3, 4)", "return self.emb(x)", "torch.tensor([0, 5])",
                  "F.embedding", ["[2] int64", "[3, 4] float32"],
                  "index out of range: table has 3 rows, indices span 0..5"),
    "cat": ("", "return torch.cat([x, torch.ones(3, 4)])", "torch.randn(2, 3)", "torch.cat",
            ["[[2, 3] float32, [3, 4] float32]"],
            "sizes must match except in cat dim 0: tensor 1 has 4, expected 3"),
    "cat_rank": ("", "return torch.cat([x, torch.ones(3)])", "torch.randn(2, 3)", "torch.cat",
                 ["[[2, 3] float32, [3] float32]"], "tensors have different numbers of dimensions: 2 vs 1"),
    "stack": ("", "return torch.stack([x, torch.ones(3, 4)])", "torch.randn(2, 3)", "torch.stack",
              ["[[2, 3] float32, [3, 4] float32]"], "stack needs equal shapes: [2, 3] vs [3, 4]"),
    "bn_single": ("self.bn = nn.BatchNorm1d(3)", "return self.bn(x)", "torch.randn(1, 3)", "F.batch_norm",
                  ["[1, 3] float32"], "batch norm in training mode needs more than 1 value per channel"),
    "bn_channels": ("self.bn = nn.BatchNorm1d(3)", "return self.bn(x)", "torch.randn(4, 5)", "F.batch_norm",
                    ["[4, 5] float32", "[3] float32"],
                    "channel mismatch: norm layer has 3 features, input has 5 channels"),
    "layernorm": ("self.ln = nn.LayerNorm(3)", "return self.ln(x)", "torch.randn(4, 5)", "F.layer_norm",
                  ["[4, 5] float32"], "trailing dims [4, 5] do not end with normalized_shape [3]"),
    "pad": ("", "return F.pad(x, (4, 4), mode='reflect')", "torch.randn(1, 2, 3)", "F.pad",
            ["[1, 2, 3] float32", "(4, 4)"], "padding (4, 4) too large for dim 2 of input [1, 2, 3]"),
    "device": ("", "return x + torch.ones(2, device='meta')", "torch.randn(2)", "torch.add",
               ["[2] float32", "[2] float32 meta"], "tensors on different devices: meta vs cpu"),
    "lstm": ("self.rnn = nn.LSTM(4, 5)", "return self.rnn(x)", "torch.randn(3, 2, 6)",
             "nn.rnn.RNNBase.check_input", [],
             "feature mismatch: layer expects input_size 4, input has 6"),
    "unknown": ("", "return torch.zeros(-1)", "torch.randn(2)", "torch.zeros", ["-1"], None),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_constraint_families(tmp_path, name):
    init, forward, inputs, op, args, constraint = CASES[name]
    ns, filename, line = load(tmp_path, program(init, f"{forward}  {MARK}", inputs))
    ev = diagnose(ns["run"], filename)
    assert ev is not None
    if op is not None:
        assert ev.op == op
    if args is not None:
        assert ev.args[: len(args)] == args
    assert ev.constraint == constraint, ev.message
    assert ev.user_line == line
    if args == []:  # raised by Python code in the library, not inside a torch op
        assert ev.summary.startswith(f"`{ev.exc_type}` raised at {line.split(': ')[0]} ")
        assert f"in `{ev.op}`: {constraint} ({ev.message})" in ev.summary
    else:
        assert ev.summary.startswith(f"`{ev.op}` got ")
    if constraint is None:
        assert ev.summary.endswith(f": {ev.message}")
    else:
        assert f": {constraint} ({ev.message})" in ev.summary
    if init:
        assert ev.module is not None and ev.module.startswith("self.")


def test_python_errors(tmp_path):
    forward = """
        lst = [1, 2]
        if x.shape[0] == 1:
            return x * lst[5]  # <- index
        if x.shape[0] == 2:
            return x * undefined_name  # <- name
        if x.shape[0] == 3:
            return len(x, 3)  # <- type
        assert x.shape[0] == 5  # <- assert
        return x
    """
    src = program("", forward, "x")
    src = src.replace("def run():", "def run(x):")
    for n, kind, exc_type in [
        (1, "index", "IndexError"),
        (2, "name", "NameError"),
        (3, "type", "TypeError"),
        (4, "assert", "AssertionError"),
    ]:
        marked = src.replace(f"# <- {kind}", MARK).replace("  # <- ", "  # ")
        ns, filename, line = load(tmp_path, marked)
        ev = diagnose(lambda ns=ns, n=n: ns["run"](torch.randn(n)), filename)
        assert ev is not None and ev.exc_type == exc_type
        assert ev.op == f"{exc_type} in Python code"
        assert ev.args == [] and ev.module is None
        assert ev.user_line == line
        where, _, source = line.partition(": ")
        assert ev.summary.startswith(f"`{exc_type}` raised at {where} `{source}`")
        if ev.message:
            assert ev.summary.endswith(ev.message + ("" if ev.constraint is None else ")"))
        if kind == "assert":
            assert ev.constraint == "program assertion failed"


def test_python_error_in_library_code(tmp_path):
    src = """
    import torch.nn as nn

    def run():
        return nn.Conv2d(4, 8, 3, groups=3)  # <-
    """
    ns, filename, line = load(tmp_path, src)
    ev = diagnose(ns["run"], filename)
    assert ev.exc_type == "ValueError"
    assert ev.op == "nn.conv._ConvNd.__init__"
    assert ev.user_line == line
    assert "in `nn.conv._ConvNd.__init__`: in_channels must be divisible by groups" in ev.summary


def test_no_program_filename_uses_innermost_non_torch_frame():
    def run():
        return torch.mm(torch.ones(2, 3), torch.ones(2, 3))

    ev = diagnose(run, None)
    assert ev.op == "torch.mm"
    assert ev.user_line.startswith("test_diagnose.py:")
    assert ev.user_line.endswith("return torch.mm(torch.ones(2, 3), torch.ones(2, 3))")


def test_wrapped_exception_still_finds_op():
    def run():
        try:
            torch.ones(2, 3).view(5)
        except RuntimeError as exc:
            raise ValueError("bad program") from exc

    ev = diagnose(run, None)
    assert ev.op == "Tensor.view"
    assert ev.exc_type == "ValueError"
    assert ev.message == "bad program"
    assert ev.constraint == "element count 6 does not fit the requested shape [5]"
    assert ev.summary.endswith("[5] (shape '[5]' is invalid for input of size 6)")


def test_caught_exception_is_not_blamed():
    def run():
        try:
            torch.ones(2, 3).view(5)
        except RuntimeError:
            pass
        return [][1]

    ev = diagnose(run, None)
    assert ev.op == "IndexError in Python code"


class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 5)
        self.emb = nn.Embedding(10, 6)

    def forward(self, x, idx):
        y = F.relu(self.bn(self.conv(x)))
        y = y + self.emb(idx).sum() * 0.1
        y = y.view(y.shape[0], -1)
        y = torch.cat([self.fc(y), y[:, :5] @ torch.eye(5)], dim=1)
        y[0, 0] = 1.0
        y.add_(2).mul_(0.5)
        return F.softmax(y, dim=-1).mean(0), y.argmax(1), y.T.contiguous()


def test_recorder_does_not_change_results():
    torch.manual_seed(0)
    model = Mixed()
    clone = copy.deepcopy(model)
    x, idx = torch.randn(2, 3, 6, 6), torch.tensor([1, 9, 3])
    expected = model(x, idx)
    recorder = OpRecorder()
    with recorder:
        got = clone(x, idx)
    assert recorder.stack == [] and recorder.failures == []
    for a, b in zip(expected, got, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert torch.equal(a, b)
    # running statistics updated identically
    assert torch.equal(model.bn.running_mean, clone.bn.running_mean)
    assert diagnose(lambda: Mixed()(x, idx), None) is None


def test_recorder_reraises_same_exception_and_restores_stack():
    recorder = OpRecorder()
    err = None
    with pytest.raises(RuntimeError) as info, recorder:
        try:
            torch.ones(2) + torch.ones(3)
        except RuntimeError as exc:
            err = exc
            raise
    assert info.value is err
    assert recorder.stack == []
    failure = recorder.failure_for(err)
    assert failure.op == "torch.add" and failure.args == ["[2] float32", "[3] float32"]


def test_recorder_nesting_keeps_innermost():
    recorder = OpRecorder()
    seen = []

    def outer(a, b):
        seen.append(list(recorder.stack))
        return recorder.__torch_function__(torch.mm, (), (a, b))

    with pytest.raises(RuntimeError) as info:
        recorder.__torch_function__(outer, (), (torch.ones(2, 3), torch.ones(2, 3)))
    name = f"{__name__.rsplit('.', 1)[-1]}.test_recorder_nesting_keeps_innermost.<locals>.outer"
    assert [[s.rsplit("test_diagnose.", 1)[-1] for s in st] for st in seen] == [
        [name.rsplit("test_diagnose.", 1)[-1]]
    ]
    assert recorder.stack == []
    failure = recorder.failure_for(info.value)
    assert failure.op == "torch.mm"
    assert [o.rsplit("test_diagnose.", 1)[-1] for o in failure.outer] == [
        name.rsplit("test_diagnose.", 1)[-1]
    ]
    assert len(recorder.failures) == 1


def test_op_names():
    assert op_name(torch.mm) == "torch.mm"
    assert op_name(torch._C._nn.linear) == "F.linear"
    assert op_name(F.conv2d) == "F.conv2d"
    assert op_name(F.softmax) == "F.softmax"
    assert op_name(torch.Tensor.add) == "torch.add"
    assert op_name(torch.Tensor.view) == "Tensor.view"
    assert op_name(torch.Tensor.__rsub__) == "-"
    assert op_name(torch.Tensor.__getitem__) == "[]"


def test_reflected_operator_args_in_written_order():
    ev = diagnose(lambda: True - torch.tensor([True, False]), None)
    assert ev.op == "-"
    assert ev.args == ["True", "[2] bool"]
    assert ev.constraint == "bool tensors do not support `-` (use `^` or logical_xor)"
    assert ev.summary.startswith("`-` got `True` and `[2] bool`: bool tensors")


def test_describe_arg():
    assert describe_arg(torch.ones(2, 10)) == "[2, 10] float32"
    assert describe_arg(torch.ones(2, device="meta")) == "[2] float32 meta"
    assert describe_arg(torch.tensor(3)) == "[] int64"
    assert describe_arg(3.5) == "3.5"
    assert describe_arg(None) == "None"
    assert describe_arg(torch.float16) == "torch.float16"
    assert describe_arg([torch.ones(1)] * 6) == (
        "[[1] float32, [1] float32, [1] float32, [1] float32, … (6 items)]"
    )
    assert len(describe_arg("x" * 500)) == 60


def test_evidence_round_trip(tmp_path):
    ns, filename, _ = load(tmp_path, S2)
    ev = diagnose(ns["run"], filename)
    data = json.loads(json.dumps(ev.to_dict()))
    assert InvalidEvidence.from_dict(data) == ev
    assert InvalidEvidence.from_dict({**data, "future_field": 1}) == ev


def test_unknown_message_has_no_constraint():
    assert match_constraint("torch.foo", "something unheard of") == (None, None)


dims = st.integers(min_value=1, max_value=6)


@settings(max_examples=60, deadline=None)
@given(a=st.tuples(dims, dims), b=st.tuples(dims, dims))
def test_mm_raises_iff_not_aligned(a, b):
    ev = diagnose(lambda: torch.mm(torch.ones(a), torch.ones(b)), None)
    if a[1] == b[0]:
        assert ev is None
    else:
        assert ev.constraint == "not row-column aligned"
        assert f"`[{a[0]}, {a[1]}]` and `[{b[0]}, {b[1]}]`" in ev.summary


@settings(max_examples=60, deadline=None)
@given(a=st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=3), data=st.data())
def test_broadcast_raises_iff_some_dim_clashes(a, data):
    b = data.draw(st.lists(st.sampled_from([1, 2, 3]), min_size=len(a), max_size=len(a)))
    ev = diagnose(lambda: torch.ones(a) * torch.ones(b), None)
    clashes = [i for i, (x, y) in enumerate(zip(a, b)) if x != y and 1 not in (x, y)]
    if not clashes:
        assert ev is None
    else:
        assert ev.op == "torch.mul"
        m = ev.constraint
        assert m.startswith("shapes not broadcastable: dim ")
        dim = int(m.split("dim ")[1].split(" ")[0])
        assert dim in clashes
        assert m.endswith(f"{a[dim]} vs {b[dim]}")
