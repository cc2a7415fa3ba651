"""Random programs under Inductor's own generator: which programs get the second run, and
that it judges structure, dtype and shape, never values (``oracle/native_random.py``)."""

import torch
from hypothesis import given
from hypothesis import strategies as st

from torchsmith.oracle import native_random as nr
from torchsmith.verdict import Verdict

RANDOM = [
    "torch.rand(4)",
    "torch.randn_like(x)",
    "x.bernoulli_(0.5)",
    "F.dropout(x, 0.5, training=True)",
    "nn.Dropout(0.1)",
    "x.uniform_(-1, 1)",
    "torch.randint(0, 9, (3,))",
    "torch.nn.functional.rrelu(x, training=True)",
]
PLAIN = [
    "torch.relu(x)",
    "x.random",
    "operand(x)",
    "brandish(x)",
    "x.normalize(1)",
    "F.dropout(x, p=0.3, training=False)",
]


def _fn(call):
    return f"def fn(x):\n    return {call}\n"


def test_random_calls_are_recognized_by_name():
    assert all(nr.draws_random(_fn(c)) for c in RANDOM)
    assert not any(nr.draws_random(_fn(c)) for c in PLAIN)


def test_random_inputs_and_parameters_are_data_not_random_ops():
    """``torch.randn`` in ``get_inputs``, ``__init__`` or at module level runs eagerly once: such
    a program draws no random numbers in the graph and gets no second run."""
    src = (
        "import torch\nx0 = torch.randn(3)\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.w = torch.nn.Parameter(torch.randn(3))\n"
        "    def forward(self, x):\n        return x * self.w\n"
        "def get_inputs():\n    return [torch.rand(3)]\n"
    )
    assert not nr.draws_random(src)
    assert nr.draws_random(src.replace("x * self.w", "torch.rand_like(x) * self.w"))


@given(st.sampled_from(RANDOM + PLAIN), st.sampled_from([None, True, False]))
def test_the_second_run_and_value_judging_follow_the_users_setting(call, user):
    """A user's ``fallback_random`` either way means no second run; with ``False`` the values
    of a random program are not compared; a program without random calls always is."""
    source = _fn(call)
    config = {} if user is None else {nr.KEY: user}
    random = call in RANDOM
    assert nr.needs_native_run(source, config) == (random and user is None)
    assert nr.values_comparable(source, config) == (not random or user is not False)


def test_judge_compares_metadata_never_values():
    a, b = torch.rand(3, 2), torch.rand(3, 2) + 5  # other values: still a pass
    assert nr.judge({"out": ([a, 1], [b, 1])}).verdict is Verdict.PASS
    j = nr.judge({"out": ([a], [b.double()])})
    assert j.verdict is Verdict.META_MISMATCH and j.evidence["output"] == "out[0]"
    assert "float64" in j.reason and "values" in j.evidence
    assert nr.judge({"out": (a, b[:2])}).verdict is Verdict.META_MISMATCH
    assert nr.judge({"out": ([a], [a, a])}).verdict is Verdict.META_MISMATCH
    assert nr.judge({"grad": ({"x": a}, {"x": None})}).verdict is Verdict.META_MISMATCH
