"""Reduction of function programs (``fn`` + calls) with fake predicates: nothing is compiled.

The predicates run the candidate eagerly in this process (``oracle.runtime``), so a candidate
that breaks the program (a name left undefined, a call that no longer runs) is never taken.
"""

from __future__ import annotations

import ast
import textwrap

import torch

from torchsmith.oracle import runtime
from torchsmith.program.format import Program, declared_settings
from torchsmith.reduce.driver import Reducer
from torchsmith.reduce.interesting import Attempt, Target
from torchsmith.reduce.kinds import keeps_kinds, kind_of
from torchsmith.reduce.passes import forward, function, function_passes
from torchsmith.reduce.source import forward_statements, parse, unparse, view
from torchsmith.verdict import Stage, Verdict

TARGET = Target(Verdict.MISMATCH, Stage.INDUCTOR, ("mismatch",), "inductor", None, None)


def src(text: str) -> str:
    return unparse(parse(textwrap.dedent(text)))


def run_calls(source: str) -> list[object] | None:
    """Every call's output, with before_call, as the oracle runs them (None: it raises)."""
    try:
        loaded = runtime.load(Program(source=source, model="fn"), 0)
        outs = []
        for i, (args, kwargs) in enumerate(loaded.calls):
            if loaded.before_call is not None:
                loaded.before_call(i, loaded.target)
            outs.append(loaded.target(*args, **kwargs))
        return outs
    except Exception:
        return None


class FakeJudge:
    def __init__(self, pred):
        self.pred, self.jobs = pred, 0

    def test(self, program: Program) -> Attempt:
        self.jobs += 1
        ok = bool(self.pred(program.source))
        return Attempt(ok, "mismatch" if ok else "pass")

    def probe(self, program: Program):
        return None


def reduce(source: str, pred, passes=None, budget: float = 60.0):
    program = Program(source=source, model="fn")
    r = Reducer(program, TARGET, [FakeJudge(pred)], passes=passes, generic=[], time_budget=budget)
    return r.run().source, r


SEQUENCE = src(
    """
    import math
    import torch

    SCALE = 1.0

    def helper(v):
        w = v.abs()
        return w + 1

    def fn(x, y, s):
        a = helper(x) * SCALE
        b = torch.relu(a) * s
        c = y.t().sum()
        return b, c

    def get_calls():
        torch.manual_seed(0)
        x = torch.randn(8, 16, dtype=torch.float64)
        y = torch.randn(6, 4).t()
        call0 = [x, y, 0.5]
        call1 = [x, y, 2.5]
        call2 = [x, y, 4.5]
        return [call0, call1, call2]

    def before_call(i, target):
        global SCALE
        if i == 0:
            SCALE = 1.0
        if i == 1:
            SCALE = -2.0
        if i == 2:
            SCALE = 3.0

    compile_kwargs = {"dynamic": True, "fullgraph": True, "mode": "default"}
    compile_config = {"inductor.freezing": True, "inductor.cpp.simdlen": 8}
    """
)


def _needs_relu_dynamic_and_a_negative_scale(source: str) -> bool:
    """The stand-in failure: ``fn`` still calls relu, every call runs, one ran with SCALE < 0
    (set by ``before_call``), and the program is compiled with ``dynamic``."""
    fn = view(source, "fn").forward
    if fn is None or "relu" not in ast.unparse(fn) or "dynamic" not in declared_settings(source)[0]:
        return False
    if run_calls(source) is None:
        return False
    loaded = runtime.load(Program(source=source, model="fn"), 0)
    seen: list[float] = []
    for i in range(len(loaded.calls)):
        if loaded.before_call is not None:
            loaded.before_call(i, loaded.target)
        seen.append(loaded.module.__dict__.get("SCALE", 1.0))
    return any(s < 0 for s in seen)


def test_function_program_reduces_calls_helpers_settings_and_arguments():
    out, r = reduce(SEQUENCE, _needs_relu_dynamic_and_a_negative_scale)
    assert forward_statements(out, "fn") <= 2, out
    kwargs, config, _ = declared_settings(out)
    assert kwargs == {"dynamic": True} and config == {}  # only the key the failure needs
    assert "helper" not in out and "y" not in out.split("def fn", 1)[1].split(":", 1)[0]
    loaded = runtime.load(Program(source=out, model="fn"), 0)
    assert len(loaded.calls) == 1  # one call, with the state the dropped calls left
    loaded.before_call(0, loaded.target)
    assert loaded.module.__dict__["SCALE"] == -2.0
    assert "float64" not in out and "randn(1" in out  # plain dtype, small shape
    assert r.counts["calls"][1] >= 1 and r.counts["settings"][1] >= 3


def test_keeping_one_call_merges_the_state_of_the_calls_before_it():
    v = view(SEQUENCE, "fn")
    assert function._keep_calls(v, [2])
    out = unparse(v.tree)
    loaded = runtime.load(Program(source=out, model="fn"), 0)
    assert len(loaded.calls) == 1 and loaded.calls[0].args[2] == 4.5
    loaded.before_call(0, loaded.target)
    assert loaded.module.__dict__["SCALE"] == 3.0  # blocks 0, 1, 2 ran, in order
    text = out.split("def before_call", 1)[1]
    assert text.count("if i == 0") == 1 and "i == 1" not in text


def test_simplify_args_keeps_every_argument_of_its_kind():
    program = Program(source=SEQUENCE, model="fn")
    from torchsmith.reduce.passes.base import Context

    labels = []
    for label, cand in function.simplify_args(Context(program)):
        labels.append(label)
        outs = run_calls(cand)
        if outs is None:
            continue
        before = runtime.load(Program(source=SEQUENCE, model="fn"), 0).calls
        after = runtime.load(Program(source=cand, model="fn"), 0).calls
        for b, a in zip(before, after):
            assert [kind_of(x) for x in a.args] == [kind_of(x) for x in b.args], label
    assert "input layout 0: contiguous" in labels
    assert "scalar argument 0: 0.5 -> 0.0" in labels
    assert "input dtype 0: float64 -> float32" in labels
    assert not any("-> 0)" in lab or "0.5 -> 0 " in lab for lab in labels)


def test_kinds_may_drop_arguments_and_calls_but_never_change_them():
    orig = [["tensor", "int"], ["tensor", "float"]]
    assert keeps_kinds([["tensor", "int"]], orig)
    assert keeps_kinds([["int"]], orig)  # the tensor argument dropped
    assert keeps_kinds([["float"]], orig)  # the first call dropped
    assert not keeps_kinds([["int", "int"]], orig)  # the tensor became an int
    assert not keeps_kinds([["float"], ["tensor", "int"]], orig)  # calls reordered
    assert kind_of([torch.ones(1), 0.5, {"k": 2}]) == ["tensor", "float", {"k": "int"}]


def test_forward_passes_work_on_fn():
    out, _ = reduce(
        SEQUENCE,
        lambda s: "relu" in s.split("def get_calls", 1)[0] and run_calls(s) is not None,
        passes=[("return-value", forward.return_value), ("drop-outputs", forward.drop_outputs)],
    )
    fn = out.split("def fn", 1)[1].split("def get_calls", 1)[0]
    assert "relu" in fn and ".t()" not in fn
    assert [n for n, _ in function_passes()][0] == "calls"


APPENDED = src(
    """
    import torch

    class CFG:
        gain = 1.0

    def fn(x, n):
        return torch.relu(x) * CFG.gain * n

    def get_calls():
        g = torch.Generator().manual_seed(1)
        calls = []
        x = torch.randn(2, 3, generator=g)
        calls.append([x, 1])
        x = torch.randn(4, 3, generator=g)
        calls.append([x, 2])
        return calls

    def before_call(i, target):
        CFG.gain = (0.5, -1.0)[i]
    """
)


def test_calls_built_by_append_with_an_opaque_before_call_keep_only_prefixes():
    from torchsmith.reduce.passes.base import Context

    cands = dict(function.drop_calls(Context(Program(source=APPENDED, model="fn"))))
    assert list(cands) == ["keep calls [0]"]  # [1] alone would see another gain
    loaded = runtime.load(Program(source=cands["keep calls [0]"], model="fn"), 0)
    assert len(loaded.calls) == 1 and loaded.calls[0].args[1] == 1
    assert function.call_lists(view(APPENDED, "fn")) is not None


def test_a_generated_python_family_sequence_program_gets_candidates():
    """The python family's function programs (``fn`` + ``get_calls`` + ``before_call``) used to
    get 0 candidates ("no model class or no forward"); now every pass family proposes some."""
    from torchsmith.generate.python.frags_stdlib import FRAGMENTS_4
    from torchsmith.generate.python.generator import FRAGMENTS, PyProgOptions, render_program

    # the fragments this test was written against (a new fragment set draws other programs)
    later = {f.name for f in FRAGMENTS_4} | {"size_arithmetic"}  # added after this test
    names = [n for n in FRAGMENTS if n not in later]
    opts = PyProgOptions(sequence_prob=1.0, module_prob=0.0)
    program = next(
        p
        for seed in range(60)
        if (p := render_program(seed, 0, opts, names)).model == "fn" and "before_call" in p.source
    )
    out, r = reduce(program.source, lambda s: run_calls(s) is not None, budget=60)
    tested = {name: c[0] for name, c in r.counts.items()}
    assert tested["calls"] >= 1 and tested["drop-statements"] >= 1 and tested["module"] >= 1
    assert forward_statements(out, "fn") < forward_statements(program.source, "fn")


def test_one_call_left_without_before_call_becomes_get_inputs():
    from torchsmith.reduce.passes.base import Context

    v = view(APPENDED, "fn")
    assert function._keep_calls(v, [0])
    v.tree.body = [s for s in v.tree.body if getattr(s, "name", None) != "before_call"]
    one = unparse(v.tree)
    [(label, out)] = list(function.one_call_as_inputs(Context(Program(source=one, model="fn"))))
    assert "def get_calls" not in out and "append" not in out and "return [x, 1]" in out
    loaded = runtime.load(Program(source=out, model="fn"), 0)
    assert loaded.calls[0].args[0].shape == (2, 3) and loaded.calls[0].args[1] == 1


REGION = src(
    """
    import torch

    @torch.compiler.nested_compile_region
    def block(a, b):
        h0 = torch.where(b > 0, a * b, b * 0.5)
        h1 = h0.sort(-1).values
        h = h1 - h0
        return h

    def fn(x, y):
        def br(a, b):
            c0 = a.sin()
            c = c0 * b
            return c
        u = block(x, y)
        return block(y, u) + br(x, y)

    def get_inputs():
        return [torch.randn(3, 4), torch.randn(3, 4)]
    """
)


def test_helper_bodies_shrink_where_they_cannot_be_inlined():
    # the failure needs `block` to multiply (its `a * b`) and `br` to be there at all
    def pred(source: str) -> bool:
        return "a * b" in source and "def br" in source and run_calls(source) is not None

    out, _ = reduce(REGION, pred, passes=[("helpers", function.shrink_helpers)])
    block = out.split("def block", 1)[1].split("def fn", 1)[0]
    assert "sort" not in block and "h1 - h0" not in block, out  # shrunk to the needed part
    assert "return h0" in block and "nested_compile_region" in out  # never inlined away
    br = out.split("def br", 1)[1].split("u = block", 1)[0]
    assert br.count("=") <= 1, out  # the nested branch shrinks too


def test_helper_op_calls_become_their_operands_and_input_helpers_stay():
    """A region body whose failure needs only that both inputs flow reduces to glue: each op
    call (nested ones too) may become its operand or the product of two operands; ``_rand``,
    which only ``get_inputs`` calls, is never shrunk."""
    source = src(
        """
        import torch

        def _rand(shape, seed):
            g = torch.Generator().manual_seed(seed)
            return torch.randn(shape, generator=g)

        @torch.compiler.nested_compile_region
        def block(a, b):
            h0 = torch.nn.functional.silu(a)
            h = torch.atan2(h0, b.abs() + 1)
            return h

        def fn(x, y):
            return block(x, y) + block(y, x)

        def get_inputs():
            return [_rand((3, 4), 0), _rand((3, 4), 1)]
        """
    )

    def pred(text: str) -> bool:  # "the failure": block still reads both a and b
        body = text.split("def block", 1)[1].split("def fn", 1)[0]
        return "b" in body.split(":", 1)[1] and run_calls(text) is not None

    out, _ = reduce(source, pred, passes=[("helpers", function.shrink_helpers)])
    body = out.split("def block", 1)[1].split("def fn", 1)[0]
    assert "silu" not in body and "atan2" not in body and "abs" not in body, out
    assert "manual_seed(seed)" in out  # the input helper is as it was
    assert "nested_compile_region" in out


def test_a_stock_message_crash_keeps_its_frame():
    """ "tuple index out of range" is Python's: a candidate raising it elsewhere (``len(t)`` of a
    0-d tensor shrunk to ``len()``) is another bug, so the target keeps the innermost frame; a
    torch message needs no frame."""
    from torchsmith.options import CheckOptions
    from torchsmith.verdict import CheckResult, Phase

    def crash(message, frame):
        ev = {"exc_type": "IndexError", "message": message, "torch_frame": frame}
        return CheckResult(Verdict.CRASH, phase=Phase.COMPILED, evidence=ev, stage=Stage.DYNAMO)

    here = "_dynamo/variables/tensor.py:1089 in method_size"
    there = "_dynamo/variables/builtin.py:1200 in call_len"
    target = Target.from_result(crash("tuple index out of range", here), CheckOptions())
    assert target.frame == "tensor.method_size"
    assert target.matches(crash("tuple index out of range", here.replace("1089", "1090")))
    assert not target.matches(crash("tuple index out of range", there))
    torch_message = crash("index 3 is out of bounds for dimension 0", here)
    assert Target.from_result(torch_message, CheckOptions()).frame == ""


def test_imports_are_never_dropped():
    """An import's side effects (the quantized_decomposed ops torch.ao registers) outlive it in
    the long-lived worker: a candidate without it passes there and fails standalone."""
    program = Program(
        source=src(
            """
            import math
            import torch
            import torch.ao.quantization.fx._decomposed

            SCALE = 2.0


            def fn(x):
                return x * SCALE


            def get_inputs():
                return [torch.ones(2)]
            """
        ),
        model="fn",
    )
    from torchsmith.reduce.passes.base import Context

    labels = [label for label, _ in function.drop_module(Context(program))]
    assert labels == ["drop module statement 3"]  # SCALE only
