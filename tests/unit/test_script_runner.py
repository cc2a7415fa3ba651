"""The script runner's own records, run in-process (tests may run program code; the tool runs
it only in workers): calls, sites, argument descriptions, side effects."""

import textwrap

import torch

from torchsmith.options import CheckOptions
from torchsmith.oracle.jobs import _aligned
from torchsmith.oracle.script import ScriptRunner
from torchsmith.program.load import as_script

SCRIPT = textwrap.dedent(
    """
    import torch

    COUNT = 0
    seen = []

    class Box:
        hits = 0

    def f(x, k=2):
        global COUNT
        COUNT += 1
        seen.append(k)
        Box.hits += 1
        return x * k

    cf = torch.compile(f, fullgraph=False)
    cf(torch.ones(3), k=3)
    cf(torch.ones(2))
    """
)


def test_eager_run_records_calls_sites_arguments_and_side_effects():
    runner = ScriptRunner(as_script(SCRIPT, "s", None, "cpu"), CheckOptions())
    run = runner.run(None, None)
    assert len(run.records) == 2 and runner.sites == ["line 17: f", "line 17: f"]
    assert run.records[0].args == ["[3] float32", "k=3"]
    assert run.records[0].compiled_with == {"fullgraph": "False"}
    assert run.records[0].effects == {"COUNT": 1, "seen#len": 1, "Box.hits": 1}
    assert run.records[1].effects == {"COUNT": 2, "seen#len": 2, "Box.hits": 2}
    assert runner.effects(run) is not None


def test_side_effects_align_so_a_dropped_one_reads_as_a_wrong_value():
    eager = [{"COUNT": 1, "seen#len": 1}]
    compiled = [{"COUNT": 1}]
    left, right, _ = _aligned(eager, compiled)
    assert left == [{"COUNT": "1", "seen#len": "1"}]
    assert right == [{"COUNT": "1", "seen#len": "unchanged"}]
    assert _aligned(None, [{"a": 1}])[0] == [{"a": "unchanged"}]


STANDIN = textwrap.dedent(
    """
    import functools
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)
            self.flag = False

        def forward(self, x):
            return self.fc(x) * (2 if self.flag else 1)

    net = Net()
    m = torch.compile(net)
    m(torch.ones(3))
    m.flag = True
    m(torch.ones(3))
    assert net.flag and m._orig_mod is net and isinstance(m, torch.nn.Module)
    assert sorted(m.state_dict()) == ["_orig_mod.fc.bias", "_orig_mod.fc.weight"]
    m.eval()
    assert not net.training
    g = functools.partial(torch.compile, backend="aot_eager")(lambda x: x + 1)
    h = torch.compile(fullgraph=True)(lambda x: x * 3)
    g(torch.ones(2)), h(torch.ones(2))
    """
)


def test_eager_stand_in_has_optimized_module_semantics_and_compile_is_a_value():
    runner = ScriptRunner(as_script(STANDIN, "s", None, "cpu"), CheckOptions())
    run = runner.run(None, None)  # the script's own asserts hold in eager
    assert len(run.records) == 4
    assert run.records[0].site == run.records[1].site != run.records[2].site
    assert run.records[2].compiled_with == {"backend": "'aot_eager'"}
    assert run.out[1].sum() == 2 * run.out[0].sum()  # the flag reached the module


INVALID = textwrap.dedent(
    """
    import torch

    f = torch.compile(lambda a, b: a @ b)
    f(torch.ones(2, 3), torch.ones(3, 2))
    f(torch.ones(2, 3), torch.ones(2, 3))
    """
)


def test_a_call_that_raises_in_eager_is_marked_invalid_and_ends_the_other_runs_there():
    runner = ScriptRunner(as_script(INVALID, "s", None, "cpu"), CheckOptions())
    run = runner.run(None, None)
    assert runner.invalid == {1: runner.invalid[1]} and "RuntimeError" in runner.invalid[1]
    assert runner.stop_at == 1 and run.out[1] is None and run.out[0] is not None
    assert runner.invalid_calls()[0]["call"] == "calls[1]"
    fp64 = runner.run(None, torch.float64)  # follows eager: ends at call 1
    assert len(fp64.records) == 2 and fp64.out[1] is None and "as eager did" in fp64.error


TRAINING = textwrap.dedent(
    """
    import torch

    net = torch.nn.Linear(4, 2)
    model = torch.compile(net)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x = torch.randn(3, 4, requires_grad=True)
    model(x).sum().backward()
    opt.step()
    (gx,) = torch.autograd.grad(model(x).square().sum(), x)
    """
)


def test_training_outside_the_call_is_kept_and_the_fp64_run_is_a_float64_reference():
    runner = ScriptRunner(as_script(TRAINING, "s", None, "cpu"), CheckOptions())
    eager = runner.run(None, None).grads
    assert set(eager) == {"call0.arg0", "call0.param:weight", "call0.param:bias",
                          "call0.updated:param:weight", "call0.updated:param:bias",
                          "autograd.grad[0][0]"}  # fmt: skip
    fp64 = runner.run(None, torch.float64).grads
    assert set(fp64) == set(eager) and all(v.dtype == torch.float64 for v in fp64.values())
    for k, v in eager.items():
        assert torch.allclose(v.double(), fp64[k], atol=1e-5), k


def test_a_script_whose_every_call_raises_in_eager_is_invalid_as_a_whole():
    import pytest

    src = textwrap.dedent(
        """
        import torch

        f = torch.compile(lambda a: a @ a)
        for shape in [(2, 3), (3, 4)]:
            try:
                f(torch.ones(shape))
            except RuntimeError:
                pass
        """
    )
    runner = ScriptRunner(as_script(src, "s", None, "cpu"), CheckOptions())
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        runner.run(None, None)
