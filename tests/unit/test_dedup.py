"""Signatures: what is normalized away, what keeps two bugs apart, and the op sets of programs."""

import pytest

from torchsmith.dedup import (
    fault_frame,
    is_known,
    load_known,
    normalize_message,
    readable_signature,
    signature,
    unwrap_message,
)
from torchsmith.program.load import program_from_source
from torchsmith.program.ops import program_size, source_ops
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict


@pytest.mark.parametrize(
    "a, b",
    [
        ("pointer 0x7f3a12bc00 is bad", "pointer 0x55d1 is bad"),
        (
            "error in /tmp/torchinductor_root/3a/c3aci7oqqbyrk3rflyax26ulnqtbndhpp2.py",
            "error in /tmp/torchinductor_bob/zz/czzzyrk3rflyax26ulnqtbndhpp2axddypq.py",
        ),
        ("key 9f86d081884c7d659a2feaa0c55ad015 missing", "key 00112233445566778899aabb missing"),
        ("cache c3aci7oqqbyrk3rflyax26ulnqtbnd", "cache kq4wzzl2m7vsoq5r3xq6ccy7gmkb"),
        ("buf12 = tmp3 + arg0_1 * primals_2", "buf0 = tmp17 + arg3_1 * primals_11"),
        ("in cpp_fused_relu_0 and kernel_cpp_3", "in cpp_fused_relu_sin_7 and kernel_cpp_0"),
        ("triton_poi_fused_add_0 failed", "triton_red_fused_sum_12 failed"),
        ("size mismatch [2, 3] vs [4, 5, 6]", "size mismatch [7] vs [1, 1]"),
        ("torch.Size([2, 3, 4]) and (s0, 3)", "torch.Size([9]) and (s1, u2, 5)"),
        ("got -1.5e-07 and 3", "got 42 and 0.25"),
        ("at line 12 of output_code.py:763", "at line 400 of output_code.py:7"),
        ("guard on L['x'].size()", "guard on L['relu2'].size()"),
        ("param L['self'].fc1.weight", "param L['self'].conv3.bias"),
        ("value inf here", "value nan here"),
        (
            "RecursionError: maximum recursion depth exceeded",
            "RecursionError: maximum recursion depth exceeded in comparison",
        ),
    ],
)
def test_incidental_detail_is_normalized_away(a, b):
    assert normalize_message(a) == normalize_message(b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("expected scalar type Float but found Half", "expected scalar type Float but found Long"),
        ("unsupported op aten.relu", "unsupported op aten.sin"),
        ("conv2d: bad stride", "conv3d: bad stride"),
        ("float32 overflow", "bfloat16 overflow"),
        ("log1p lowering failed", "expm1 lowering failed"),
    ],
)
def test_what_matters_is_kept(a, b):
    assert normalize_message(a) != normalize_message(b)


def test_first_meaningful_line_skips_wrappers_and_blank_lines():
    msg = "\n\nbackend='inductor' raised:\nCppCompileError: C++ compile error\n\nCommand:\ng++ x"
    assert normalize_message(msg) == "CppCompileError: C++ compile error"
    assert len(normalize_message("x " * 500)) <= 200


def _crash(message: str, frame: str, exc: str = "RuntimeError") -> CheckResult:
    return CheckResult(
        Verdict.CRASH,
        Phase.COMPILED,
        evidence={"exc_type": exc, "root_type": exc, "message": message, "torch_frame": frame},
        stage=Stage.INDUCTOR,
    )


def test_crash_signature_ignores_line_numbers_and_paths_but_not_the_function():
    a = _crash("boom at buf3", "_inductor/output_code.py:763 in __call__")
    b = _crash("boom at buf11", "_inductor/output_code.py:790 in __call__")
    c = _crash("boom at buf3", "_inductor/graph.py:12 in codegen")
    assert signature(a) == signature(b) != signature(c)
    assert (
        readable_signature(a)
        == "exception|inductor|RuntimeError|boom at <name>|output_code.__call__"
    )
    d = _crash(
        "boom at buf3", "_inductor/output_code.py:763 in __call__", exc="torch._x.ValueError"
    )
    assert signature(d) != signature(a)


def test_died_and_timeout_signatures_use_signal_phase_and_faulthandler_frame():
    log = (
        "Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n"
        '  File "/x/site-packages/torch/_inductor/codecache.py", line 9 in load\n'
        '  File "/x/site-packages/torch/_dynamo/eval_frame.py", line 5 in _fn\n'
    )
    assert fault_frame(log) == "codecache.load"
    died = CheckResult(Verdict.DIED, Phase.COMPILED, evidence={"signal": "SIGSEGV"},
                       stage=Stage.INDUCTOR, log_tail=log)  # fmt: skip
    assert readable_signature(died) == "segfault|inductor|SIGSEGV||codecache.load"
    eager = CheckResult(Verdict.DIED, Phase.EAGER, evidence={"signal": "SIGSEGV"})
    assert readable_signature(eager) == "segfault|eager|SIGSEGV||"
    oom = CheckResult(
        Verdict.DIED, Phase.EAGER, evidence={"signal": "SIGKILL", "memory_exceeded": True}
    )
    assert readable_signature(oom) == "oom|eager|memory||"
    hang = CheckResult(Verdict.TIMEOUT, Phase.COMPILED, stage=Stage.INDUCTOR)
    assert readable_signature(hang) == "hang|inductor|timeout||"


PROG_A = """
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def distinct_values(shape, g):
    return torch.randperm(math.prod(shape), generator=g).reshape(shape).float()


def helper(t):
    return torch.sigmoid(t)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu1 = nn.ReLU()
        self.w = nn.Parameter(torch.randn(3))

    def forward(self, x, y):
        a = self.relu1(x) * y
        b = F.relu(a).sum(dim=0)
        x += 1
        return helper(b)[0], -a, self.w.t()


def get_inputs():
    g = torch.Generator()
    return [distinct_values((3, 3), g), torch.rand(3, 3)]
"""


def test_program_ops_counts_model_code_only_with_canonical_names():
    ops = source_ops(PROG_A)
    assert ops == ["add_", "getitem", "mul", "neg", "relu", "sigmoid", "sum", "t"]
    assert "randperm" not in ops and "randn" not in ops and "parameter" not in ops
    assert source_ops("def broken(:") == []


def test_mismatch_signature_is_stage_and_op_set():
    prog = program_from_source(PROG_A, name="a")
    same_ops = program_from_source(PROG_A.replace("torch.rand(3, 3)", "torch.rand(3, 3) + 1"))
    r = CheckResult(Verdict.MISMATCH, Phase.COMPARE, stage=Stage.INDUCTOR)
    assert readable_signature(r, prog).startswith("wrong-value|inductor|add_,getitem,mul")
    assert signature(r, prog) == signature(r, same_ops)  # input code is not part of it
    other = program_from_source(PROG_A.replace("torch.sigmoid", "torch.tanh"))
    assert signature(r, prog) != signature(r, other)
    lines, ops = program_size(prog)
    assert ops == 8 and 15 < lines < 30


def test_known_list_reads_both_forms_and_comments(tmp_path):
    f = tmp_path / "known.txt"
    f.write_text("# known bugs\nsig-0123456789ab  # the relu one\n\nexception|inductor|X|y|z\n")
    known = load_known(f)
    assert known == {"sig-0123456789ab", "exception|inductor|X|y|z"}
    assert is_known("sig-0123456789ab", "other", known)
    assert is_known("sig-ffffffffffff", "exception|inductor|X|y|z", known)
    assert not is_known("sig-ffffffffffff", "other", known)


SLICED = """
import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.conv = torch.nn.Conv1d(1, 1, 1)
    def forward(self, x, y):
        a = self.fc(x)
        b = torch.sin(y)
        c = a.index_add(0, torch.tensor([0]), a[:1])
        b.mul_(2)
        return c.relu(), b + 1
def get_inputs():
    return [torch.randn(4, 4), torch.randn(3)]
"""


def test_a_wrong_output_is_signed_by_the_ops_it_depends_on_only():
    from torchsmith.dedup import readable_signature
    from torchsmith.program.ops import output_ops

    assert output_ops(SLICED, "Model", "out[0]") == [
        "getitem", "index_add", "linear", "relu", "tensor",
    ]  # fmt: skip
    assert output_ops(SLICED, "Model", "out[1]") == ["add", "mul_", "sin"]  # in place counts
    assert output_ops(SLICED, "Model", "grad[input0]") is None  # not traceable: every op
    program = program_from_source(SLICED)
    result = CheckResult(Verdict.MISMATCH, Phase.COMPARE, evidence={"output": "out[1]"})
    result.stage = Stage.INDUCTOR
    assert readable_signature(result, program) == "wrong-value|inductor|add,mul_,sin"
    # the same bug behind other, unrelated outputs signs the same
    other = SLICED.replace("return c.relu(), b + 1", "return c.cumsum(0), b + 1")
    assert readable_signature(result, program_from_source(other)) == (
        "wrong-value|inductor|add,mul_,sin"
    )


# Dynamo wraps an op's error in its fake-tensor run; the wording differs between releases.
_WRAP_213 = (
    "RuntimeError when making fake tensor call\n"
    "  Explanation: Dynamo failed to run FX node with fake tensors: call_function "
    "<built-in method mm of type object at 0x7f43bc4cea40>(*(FakeTensor(..., size=(2, 10)), "
    "FakeTensor(..., size=(2, 10))), **{}): got RuntimeError('{inner}')\n"
    "  Hint: Your code may result in an error when running in eager."
)
_WRAP_26 = (
    "Failed running call_function <built-in method mm of type object at 0x7fbc9cf9ef00>"
    "(*(FakeTensor(..., size=(2, 10)), FakeTensor(..., size=(2, 10))), **{}):\n{inner}\n\n"
    'from user code:\n  File "/tmp/x.py", line 3, in fn'
)


def test_a_fake_tensor_wrapper_keys_by_its_op_and_inner_error_alike_on_both_releases():
    inner = "a and b must have same reduction dim, but got [2, 10] X [2, 10]."
    new = normalize_message(_WRAP_213.replace("{inner}", inner))
    old = normalize_message(_WRAP_26.replace("{inner}", inner))
    assert new == old
    assert new.startswith("fake tensor call to mm: a and b must have same reduction dim")


def test_fake_tensor_wrappers_around_different_inner_errors_key_apart():
    one = normalize_message(_WRAP_213.replace("{inner}", "Expected cond to be True"))
    two = normalize_message(_WRAP_213.replace("{inner}", "shape mismatch in broadcast"))
    assert one != two
    pw = _WRAP_213.replace(
        "built-in method mm of type object at 0x7f43bc4cea40", "built-in function pow"
    )
    assert normalize_message(pw.replace("{inner}", "x")).startswith("fake tensor call to pow:")


def test_a_cpp_compile_error_keys_by_the_compiler_s_first_error_not_its_generic_line():
    def msg(err: str, path: str) -> str:
        return (
            "CppCompileError: C++ compile error\n\nCommand:\ng++ /tmp/x.cpp -O3\n\nOutput:\n"
            f"{path}:37:86: {err}\n{path}:37:86: note: candidate\n"
        )

    conv = "error: no matching function for call to 'convert<int32_t, 1, int64_t, 2>(Vec&)'"
    a = normalize_message(msg(conv, "/tmp/torchinductor_root/d7/cd7y33xn.cpp"))
    b = normalize_message(msg(conv, "/tmp/torchinductor_u/aa/cbbbbbbbbb.cpp"))
    c = normalize_message(msg("error: 'tmp3' was not declared in this scope", "/tmp/a/b.cpp"))
    assert a == b != c
    assert a.startswith("C++ compile error: no matching function for call to")
    wrapped = "backend='inductor' raised:\n" + msg(conv, "/tmp/q/r.cpp")  # torch 2.6's wrapper
    assert normalize_message(wrapped) == a
    assert normalize_message("CppCompileError: C++ compile error") == (
        "CppCompileError: C++ compile error"
    )


def test_a_cpp_errors_stack_is_cut_from_dynamos_fake_tensor_message():
    message = (
        "Dynamo failed to run FX node with fake tensors: call_function <built-in method cov of"
        " type object at 0x7f>(*(FakeTensor(..., size=(2, 3)),), **{'aweights': FakeTensor(...,"
        " size=(3,))}): got RuntimeError('Cannot call numel() on tensor with symbolic"
        " sizes/strides\\nException raised from throw_cannot_call_with_symbolic at /x.cpp:340"
        " (most recent call first):\\nframe #0: c10::Error::Error')"
    )
    assert unwrap_message(message) == (
        "fake tensor call to cov: Cannot call numel() on tensor with symbolic sizes/strides"
    )


def test_higher_order_ops_are_ops_and_input_helpers_are_not():
    """A torch decorator (``nested_compile_region``) and names imported from torch (``scan``,
    ``map as map_hop``) are ops of the program; a helper only ``get_inputs`` calls is not."""
    source = """
import torch
from torch._higher_order_ops import scan
from torch._higher_order_ops import map as map_hop


def _rand(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g)


@torch.compiler.nested_compile_region
def block(a, b):
    return a * b


def fn(x, y):
    def comb(c, xs):
        return c + xs, c.sin()

    last, ys = scan(comb, x[0], y)
    return block(last, y[0]) + map_hop(lambda r: r.cos(), ys).sum()


def get_inputs():
    return [_rand((3, 4), 0), _rand((3, 4), 1)]
"""
    ops = source_ops(source)
    assert {"nested_compile_region", "scan", "map", "sin", "cos", "mul"} <= set(ops), ops
    assert "randn" not in ops and "manual_seed" not in ops


def test_a_list_of_types_in_a_message_signs_alike_in_any_order():
    """``vmap`` of ``cond`` hands ``cond`` a SymInt at whichever operand the program put it:
    the operands' order is incidental, the types are the failure."""
    msg = "Cond inputs must be a list of tensors, got [<class 'torch.Tensor'>, {}, {}]"
    t, s = "<class 'torch.Tensor'>", "<class 'torch.SymInt'>"
    assert normalize_message(msg.format(t, s)) == normalize_message(msg.format(s, t))
    assert normalize_message(msg.format(t, t)) != normalize_message(msg.format(t, s))


def _uncaptured(hop: str, reason: str, fn: str) -> str:
    return (
        "This higher order operator doesn't work unless it is captured completely with"
        f" torch.compile. Got graph break/error:\n\n{reason}\n  Higher Order Operator: {hop}\n"
        f"  Explanation: Dynamo developers have intentionally marked that the function `{fn}`"
        " should not be traced.\n  Hint: Avoid calling the function."
    )


def test_an_uncaptured_higher_order_op_is_keyed_by_its_inner_graph_break_and_refused_function():
    cond = _uncaptured(
        "torch.cond",
        "Attempted to inline function marked as skipped",
        "_LazyGraphModule._lazy_forward",
    )
    scan = _uncaptured(
        "torch.ops.higher_order.scan",
        "Attempted to call function marked as skipped",
        "setup_stacktrace_preservation_hooks.<locals>.get_prehook.<locals>.prehook",
    )
    assert normalize_message(cond) == (
        "uncaptured higher-order op: Attempted to inline function marked as skipped"
        " (_LazyGraphModule._lazy_forward)"
    )
    as_map = cond.replace("torch.cond", "torch.ops.higher_order.map_impl")
    assert normalize_message(as_map) == normalize_message(cond)  # one refusal, two ops
    assert normalize_message(scan) == (
        "uncaptured higher-order op: Attempted to call function marked as skipped (prehook)"
    )
    old = "Cond doesn't work unless it is captured completely with torch.compile. Scroll up."
    assert normalize_message(old) == old  # 2.6's wording has no inner reason: unchanged


def test_a_fallback_and_decomp_clash_is_keyed_without_its_op():
    msg = "LoweringException: AssertionError: both a fallback and a decomp for same op: aten.{}.default"
    assert normalize_message(msg.format("gelu")) == normalize_message(msg.format("clamp"))
    assert "<op>" in normalize_message(msg.format("roll"))
