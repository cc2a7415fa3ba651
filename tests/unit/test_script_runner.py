"""The script runner's own records, run in-process (tests may run program code; the tool runs
it only in workers): calls, sites, argument descriptions, side effects."""

import textwrap

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
