"""oracle/undefined.py: which output values are undefined by construction (eager only)."""

import torch

from torchsmith.oracle.undefined import UndefinedTracker, blank


def track(fn, *args):
    tracker = UndefinedTracker()
    with tracker:
        out = fn(*args)
    return out, {p: m.tolist() for p, m in tracker.undefined(out, "out").items()}


def test_empty_factories_are_undefined():
    t = torch.randn(2, 3)

    def fn(t):
        return (
            torch.empty(2), torch.Tensor(t.size()), torch.FloatTensor(2, 3),
            torch.empty_like(t), t.new_empty(3), torch.empty_strided((2, 2), (1, 2)), t * 2,
        )  # fmt: skip

    _, undefined = track(fn, t)
    assert sorted(undefined) == [f"out[{i}]" for i in range(6)]
    assert undefined["out[0]"] == [True, True]


def test_written_buffers_are_defined():
    x = torch.randn(4)

    def fn(x):
        a = torch.empty(4).fill_(1.0)
        b = torch.add(x, 1, out=torch.empty(4))
        c = torch.empty_like(x).copy_(x)
        d = torch.empty(4)
        d[:] = x
        e = torch.empty(4).normal_()
        f = torch.empty(2, 4)
        f[0] = x
        f[1] = x
        return a, b, c, d, e, f, a + 1

    _, undefined = track(fn, x)
    assert undefined == {}


def test_partial_writes_leave_the_rest_undefined():
    def fn():
        e = torch.empty(4)
        e[:2] = 1
        return e, e[:2], e[2:]

    _, undefined = track(fn)
    assert undefined == {"out[0]": [False, False, True, True], "out[2]": [True, True]}


def test_reading_undefined_values_taints_results_and_targets():
    x = torch.ones(3)

    def fn(x):
        e = torch.empty(3)
        y = torch.relu(e)  # new tensor from undefined values
        z = torch.ones(3)
        z.copy_(e)  # written from undefined values
        w = torch.empty(3).fill_(2.0).add_(e)  # read-modify-write with undefined values
        return y, z, w, x * 2

    _, undefined = track(fn, x)
    assert sorted(undefined) == ["out[0]", "out[1]", "out[2]"]


def test_tracking_does_not_change_values_and_blank_zeroes_the_undefined_part():
    x = torch.randn(5)

    def fn(x):
        e = torch.empty(5)
        e[:2] = x[:2]
        return torch.sin(x).cumsum(0), e

    plain = fn(x)
    out, _ = track(fn, x)
    assert torch.equal(plain[0], out[0])
    tracker = UndefinedTracker()
    with tracker:
        out = fn(x)
    masks = tracker.undefined(out, "out")
    assert blank(out, "out", masks) == ["out[1]"]
    assert torch.equal(out[1][2:], torch.zeros(3)) and torch.equal(out[1][:2], x[:2])
    assert blank((torch.ones(3), torch.ones(2)), "out", masks) == []  # other shape: left alone
