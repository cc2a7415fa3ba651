"""Reduction passes and the driver on source, with fake predicates: nothing is compiled.

The pattern follows shrinkray's pass tests: start from a known program, run one pass (or a short
list) to a fixed point under a predicate on the source, and assert the exact result. Where a pass
needs facts from a run (the cut pass), the probe runs eagerly in this process.
"""

from __future__ import annotations

import textwrap
import threading

import pytest
import torch

from torchsmith.execute.protocol import JobOutcome, Request
from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime
from torchsmith.program.format import Program
from torchsmith.reduce.driver import Reducer
from torchsmith.reduce.interesting import Attempt, Judge, Target, failure_key
from torchsmith.reduce.passes import cleanup, cut, forward, inline, shrink
from torchsmith.reduce.probe import instrument, record_values
from torchsmith.reduce.source import dce, forward_statements, parse, size_key, unparse
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict

TARGET = Target(Verdict.MISMATCH, Stage.INDUCTOR, ("mismatch",), "inductor", None, None)


def src(text: str) -> str:
    return unparse(parse(textwrap.dedent(text)))


def run_eager(source: str) -> object:
    loaded = runtime.load(Program(source=source), 0)
    return runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False).out


def runs(source: str) -> bool:
    try:
        run_eager(source)
        return True
    except Exception:
        return False


class FakeJudge:
    """A judge whose verdict is a predicate on the source; probes run eagerly in-process."""

    lock = threading.Lock()

    def __init__(self, pred):
        self.pred = pred
        self.jobs = 0
        self.seen: list[str] = []

    def test(self, program: Program) -> Attempt:
        self.jobs += 1
        self.seen.append(program.source)
        ok = bool(self.pred(program.source))
        return Attempt(ok, "mismatch" if ok else "pass")

    def probe(self, program: Program):
        with self.lock:  # the program module is a process-wide name
            res = record_values(instrument(program), CheckOptions(), lambda p: None)
        return [tuple(r) for r in res["records"]]


def reduce(source: str, pred, passes, workers: int = 1, budget: float = 60.0):
    judges = [FakeJudge(pred) for _ in range(workers)]
    r = Reducer(
        Program(source=source), TARGET, judges, passes=passes, generic=[], time_budget=budget
    )
    return r.run().source, r


def fwd_text(source: str) -> str:
    return source.split("def forward", 1)[1].split("\ndef ", 1)[0]


MLP = src(
    """
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x, y):
            a = self.fc(x)
            b = a * 2.0
            c = torch.relu(b)
            d = c + 1.0
            e = torch.sin(y)
            f = e.sum()
            return d, e, f

    def get_inputs():
        return [torch.randn(4, 8), torch.randn(3)]
    """
)


def has_relu(source: str) -> bool:
    return "relu" in fwd_text(source) and runs(source)


def test_drop_outputs_keeps_only_the_failing_output():
    out, _ = reduce(MLP, has_relu, [("drop-outputs", forward.drop_outputs)])
    assert "return d" in out and "sin" not in out
    # y is unused now, but its input is drawn inline from the global RNG: dropping it would
    # shift the inputs after it, so that is left to the (tested) clean-up pass
    assert "def forward(self, x, y):" in out
    out, _ = reduce(out, has_relu, [("cleanup", cleanup.cleanup)])
    assert "def forward(self, x):" in out and "torch.randn(3)" not in out


def test_return_value_truncates_after_the_first_failing_value():
    out, _ = reduce(MLP, has_relu, [("return-value", forward.return_value)])
    body = fwd_text(out)
    assert "return c" in body and "d = c" not in body and "sin" not in body
    assert forward_statements(out) == 4


def test_cut_replaces_producers_by_seeded_inputs_of_the_same_shape():
    passes = [("return-value", forward.return_value), ("cut", cut.cut_values)]
    out, _ = reduce(MLP, has_relu, passes)
    body = [line.strip() for line in fwd_text(out).strip().splitlines()[1:]]
    assert body == ["c = torch.relu(b)", "return c"]
    assert "torch.empty((4, 8)).uniform_(" in out and "manual_seed(" in out
    loaded = runtime.load(Program(source=out), 0)
    again = runtime.load(Program(source=out), 123)
    assert loaded.inputs[-1].shape == (4, 8)
    assert torch.equal(loaded.inputs[-1], again.inputs[-1])  # its own generator, not the seed


def test_cut_turns_python_values_into_literals():
    source = src(
        """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def forward(self, x):
                n = x.shape[0]
                return torch.relu(x.reshape(n, -1))

        def get_inputs():
            return [torch.randn(3, 2, 2)]
        """
    )
    out, _ = reduce(source, has_relu, [("cut", cut.cut_values)])
    assert "torch.relu(x.reshape(3, -1))" in out and "n =" not in out


def test_drop_statements_removes_effects_the_failure_does_not_need():
    source = src(
        """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def forward(self, x):
                x.add_(1.0)
                print('hello')
                return torch.relu(x)

        def get_inputs():
            return [torch.randn(3)]
        """
    )
    out, _ = reduce(source, has_relu, [("drop-statements", forward.drop_statements)])
    assert "add_" not in out and "print" not in out and "torch.relu(x)" in out


def test_fold_and_dce():
    out, _ = reduce(MLP, has_relu, [("return-value", forward.return_value), ("fold", forward.fold)])
    assert "return torch.relu(self.fc(x) * 2.0)" in out
    body = parse("a = f(x)\nb = g(a)\nc.add_(1)\nd = h(x)\nreturn b").body
    assert [ast_line(s) for s in dce(body)] == ["a = f(x)", "b = g(a)", "c.add_(1)", "return b"]


def ast_line(node) -> str:
    import ast

    return ast.unparse(node)


def test_cleanup_drops_unused_layers_helpers_imports_and_trivia():
    source = src(
        '''
        """module docstring"""
        import math
        import os

        import torch
        import torch.nn as nn

        def helper(t):
            return math.tanh(t)

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.unused = nn.Conv2d(3, 4, 3)
                self.fc = nn.Linear(4, 4)

            def forward(self, x, y):
                return torch.relu(self.fc(x))

        def get_inputs():
            g = torch.Generator()
            x = torch.randn(2, 4, generator=g.manual_seed(1))
            y = torch.randn(5, generator=g.manual_seed(2))
            return [x, y]

        def get_init_inputs():
            return []
        '''
    )
    out, _ = reduce(source, has_relu, [("cleanup", cleanup.cleanup)])
    for gone in ("unused", "helper", "import math", "import os", "docstring", "get_init_inputs"):
        assert gone not in out, gone
    assert "def forward(self, x):" in out and "y =" not in out and "self.fc = nn.Linear" in out


def same_outputs(a: str, b: str) -> bool:
    x, y = run_eager(a), run_eager(b)
    return all(torch.equal(p, q) for p, q in zip(x, y))


def test_inline_helper_method_and_submodule_keep_outputs_bit_identical():
    source = src(
        """
        import torch
        import torch.nn as nn

        def scaled(t, k=0.5):
            u = t * k
            return torch.tanh(u)

        class Block(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.fc = nn.Linear(width, width)

            def forward(self, z):
                h = self.fc(z)
                return torch.relu(h)

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.pre = nn.Linear(6, 6)
                self.block = Block(6)

            def twice(self, v):
                return v * 2.0

            def forward(self, x):
                a = self.pre(x)
                b = self.block(scaled(a))
                return self.twice(b), a

        def get_inputs():
            return [torch.randn(3, 6)]
        """
    )
    out, r = reduce(source, runs, [("inline", inline.inline_calls)])
    assert "class Block" not in out and "def scaled" not in out and "def twice" not in out
    assert "self.block_fc = nn.Linear(6, 6)" in out and "self.block_fc(" in out
    assert same_outputs(source, out)  # same parameters (same init order), same values
    assert all(
        size_key(b.source) < size_key(a.source) for a, b in zip([r.accepted[0]], r.accepted[1:])
    )


CONV = src(
    """
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 8, kernel_size=3, stride=2, groups=2, bias=True)
            self.seq = nn.Sequential(nn.Identity(), nn.ReLU(), nn.Identity())

        def forward(self, x):
            return self.seq(self.conv(x))

    def get_inputs():
        return [torch.randn(2, 4, 10, 10, dtype=torch.float64)]
    """
)


def test_shrink_layers_shapes_and_dtypes_to_the_smallest_valid_program():
    passes = [
        ("layers", shrink.shrink_layers),
        ("shapes", shrink.shrink_shapes),
        ("dtypes", shrink.simplify_dtypes),
    ]

    def pred(s: str) -> bool:
        return "nn.ReLU" in s and "Conv2d" in s and runs(s)

    out, _ = reduce(CONV, pred, passes)
    assert "nn.Conv2d(1, 1, kernel_size=1, stride=1, groups=1, bias=False)" in out
    assert "nn.Sequential(nn.ReLU())" in out
    assert "torch.randn(1, 1, 1, dtype=torch.float32)" in out  # rank 4 -> 3: conv2d's minimum


def test_first_success_in_pass_order_whatever_the_number_of_workers():
    def pred(s: str) -> bool:  # several candidates pass; the first in order must win
        return "relu" in s and runs(s)

    passes = [("return-value", forward.return_value), ("drop-outputs", forward.drop_outputs)]
    one, r1 = reduce(MLP, pred, passes, workers=1)
    three, r3 = reduce(MLP, pred, passes, workers=3)
    assert one == three
    assert [p.source for p in r1.accepted] == [p.source for p in r3.accepted]
    keys = [size_key(p.source) for p in [Program(MLP), *r1.accepted]]
    assert all(b < a for a, b in zip(keys, keys[1:]))  # every acceptance is strictly smaller


def test_candidates_that_cannot_run_or_are_not_smaller_cost_no_job():
    source = src(
        """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def forward(self, x):
                a = torch.relu(x)
                b = a + 1
                return b

        def get_inputs():
            return [torch.randn(3)]
        """
    )
    asked: list[str] = []
    # a predicate that accepts anything it is asked: only the parent's own filter keeps it unused
    out, r = reduce(
        source, lambda s: asked.append(s) or True, [("drop-statements", forward.drop_statements)]
    )
    # every deletion leaves `a` or `b` undefined: rejected in the parent, never sent to a worker
    assert asked == [] and out == source
    assert r.skipped >= 2 and not r.attempts


def test_zero_budget_returns_the_program_untouched():
    out, r = reduce(MLP, lambda s: True, [("return-value", forward.return_value)], budget=0)
    assert out == MLP and not r.attempts


# -- the strict test ---------------------------------------------------------------------------
class FakeWorker:
    """Answers check jobs per backend with canned results."""

    def __init__(self, by_backend: dict[str, dict]):
        self.by_backend = by_backend
        self.memory_mb = 0
        self.requests: list[str] = []

    def run(self, request: Request, timeout: float, memory_mb: int | None = None) -> JobOutcome:
        self.requests.append(request.backend)
        return JobOutcome(status="result", result=self.by_backend[request.backend])


def mismatch(output: str = "out") -> dict:
    figs = {"compiled_vs_fp64": {"max_abs": 1.0}, "eager_vs_fp64": {"max_abs": 0.0}}
    return {
        "verdict": "mismatch",
        "phase": "compare",
        "evidence": {"figures": figs, "output": output},
    }


def crash(exc: str, msg: str) -> dict:
    return {"verdict": "crash", "phase": "compiled", "evidence": {"exc_type": exc, "message": msg}}


PASS = {"verdict": "pass", "phase": None}
ORIGINAL = CheckResult.from_dict(
    {**mismatch(), "stage": "inductor", "ladder": {"aot_eager_decomp_partition": "pass"}}
)


@pytest.mark.parametrize(
    "inductor,below,ok",
    [
        (mismatch(), PASS, True),
        (crash("RuntimeError", "boom"), PASS, False),  # a mismatch must not become a crash
        ({"verdict": "invalid", "phase": "eager"}, PASS, False),
        ({"verdict": "unstable", "phase": "compare"}, PASS, False),
        ({"verdict": "mismatch", "phase": "compare", "evidence": {"differ": 3}}, PASS, False),
        (mismatch("grad[input0]"), PASS, False),  # a forward bug must not become a grad bug
        (mismatch(), mismatch(), False),  # the stage would move down to decomp
        (mismatch(), crash("RuntimeError", "x"), False),  # a new failure below
        (PASS, PASS, False),
    ],
)
def test_judge_accepts_only_the_same_failure_at_the_same_stage(inductor, below, ok):
    target = Target.from_result(ORIGINAL, CheckOptions())
    assert (target.rung, target.below) == ("inductor", "aot_eager_decomp_partition")
    w = FakeWorker({"inductor": inductor, "aot_eager_decomp_partition": below})
    att = Judge(w, CheckOptions(), target).test(Program(source=MLP))
    assert att.interesting is ok
    # one job when the stage's rung already disagrees, two otherwise
    first = CheckResult.from_dict(inductor)
    assert len(w.requests) == (2 if target.matches(first) else 1)


def test_crash_key_is_exception_type_and_normalized_message():
    a = CheckResult.from_dict(
        crash("torch._inductor.exc.InductorError", "CppCompileError: at /tmp/x/y.cpp:12")
    )
    b = CheckResult.from_dict(
        crash("torch._inductor.exc.InductorError", "CppCompileError: at /tmp/z/w.cpp:99")
    )
    c = CheckResult.from_dict(crash("RuntimeError", "CppCompileError: at /tmp/z/w.cpp:99"))
    assert failure_key(a) == failure_key(b) != failure_key(c)
    dyn = CheckResult.from_dict({**crash("Unsupported", "m"), "stage": "dynamo"})
    t = Target.from_result(dyn, CheckOptions())
    assert (t.rung, t.below) == ("eager", None)


@pytest.mark.parametrize(
    "stage,rung,below",
    [
        ("aoti-run", "aoti", "aoti_compile"),
        ("aoti-compile", "aoti_compile", "export_decomp"),
        ("export-decomp", "export_decomp", "export"),
        ("export", "export", None),
    ],
)
def test_a_deployment_path_failure_is_checked_against_the_rung_below_on_its_own_ladder(
    stage, rung, below
):
    r = CheckResult.from_dict({**crash("RuntimeError", "m"), "stage": stage})
    t = Target.from_result(r, CheckOptions(backend="aoti"))
    assert (t.rung, t.below) == (rung, below)


def test_probe_records_shapes_dtypes_and_ranges_per_statement():
    recs = FakeJudge(None).probe(Program(source=MLP))
    names = {(i, n): d for i, n, d in recs}
    assert names[(-1, "x")]["shape"] == [4, 8] and names[(2, "c")]["lo"] >= 0.0
    assert names[(5, "f")]["kind"] == "tensor" and names[(5, "f")]["shape"] == []
    assert isinstance(size_key(MLP), tuple) and Phase.COMPARE.value == "compare"


def test_inputs_built_by_helper_code_become_plain_seeded_tensors():
    source = src(
        """
        import math

        import torch
        import torch.nn as nn

        def distinct_values(shape, lo, hi, g):
            n = math.prod(shape)
            return (lo + (hi - lo) * torch.randperm(n, generator=g) / n).reshape(shape)

        class Model(nn.Module):
            def forward(self, u):
                return torch.relu(u)

        def get_inputs():
            g = torch.Generator()
            u = distinct_values((2, 3), -1.0, 1.0, g.manual_seed(1))
            return [u]
        """
    )
    out, _ = reduce(source, has_relu, [("inputs", cut.simplify_inputs)])
    assert "distinct_values" not in out and "import math" not in out
    assert (
        "return [torch.empty((2, 3)).uniform_(-1.0, 0.67, generator=torch.Generator().manual_seed(0))]"
        in out
    )


def _diff(value: float) -> dict:
    r = mismatch()
    r["evidence"]["figures"]["compiled_vs_eager"] = {"max_abs": value}
    return r


@pytest.mark.parametrize(
    "original,candidate,ok",
    [
        (1.0, 0.5, True),
        (1.0, 1.0e-4, False),  # shrunk to the tolerance's edge
        (1.0, 2.5e-4, True),
        (1.5e-4, 1.5e-4, True),  # the original itself sat near the edge: it is the floor
        (1.5e-4, 1.2e-4, False),
    ],
)
def test_a_wrong_value_shrunk_to_the_tolerance_edge_is_not_the_same_failure(
    original, candidate, ok
):
    target = Target.from_result(CheckResult.from_dict(_diff(original)), CheckOptions())
    w = FakeWorker({"inductor": _diff(candidate), "aot_eager_decomp_partition": PASS})
    assert Judge(w, CheckOptions(), target).test(Program(source=MLP)).interesting is ok
