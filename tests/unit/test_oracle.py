"""The numerical oracle on hand-made outputs: no compiler involved, so every rule is exact."""

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torchsmith.oracle.compare import compare, flatten, identical
from torchsmith.verdict import Verdict


def fp64_of(x: torch.Tensor) -> torch.Tensor:
    return x.double()


def test_identical_outputs_pass():
    x = torch.randn(5, 7)
    assert compare(x, x.clone(), fp64_of(x), 1e-4).verdict is Verdict.PASS


def test_wrong_values_are_mismatch_with_figures():
    x = torch.randn(50, 50)
    res = x.clone()
    res[3, 4] += 1.0
    j = compare(x, res, fp64_of(x), 1e-4)
    assert j.verdict is Verdict.MISMATCH
    figs = j.evidence["figures"]
    assert math.isclose(figs["compiled_vs_fp64"]["max_abs"], 1.0, rel_tol=1e-5)
    assert figs["eager_vs_fp64"]["max_abs"] == 0.0
    assert j.evidence["output"] == "out"


def test_compiled_closer_to_fp64_than_eager_passes():
    truth = torch.randn(2000, dtype=torch.float64)
    eager = (truth + 1e-3 * torch.randn(2000, dtype=torch.float64)).float()
    compiled = (truth + 1e-6 * torch.randn(2000, dtype=torch.float64)).float()
    assert compare(eager, compiled, truth, 1e-4).verdict is Verdict.PASS


def test_compiled_much_further_from_fp64_than_eager_fails():
    truth = torch.randn(2000, dtype=torch.float64)
    eager = (truth + 1e-6 * torch.randn(2000, dtype=torch.float64)).float()
    compiled = (truth + 1e-2 * torch.randn(2000, dtype=torch.float64)).float()
    assert compare(eager, compiled, truth, 1e-4).verdict is Verdict.MISMATCH


@settings(max_examples=50, deadline=None, derandomize=True)
@given(
    n=st.integers(1, 3000),
    seed=st.integers(0, 2**16),
    noise=st.floats(1e-9, 1e-6),
)
def test_rounding_sized_differences_never_fail(n, seed, noise):
    """Compiled within float32 rounding noise of fp64 always passes, whatever eager does."""
    g = torch.Generator().manual_seed(seed)
    truth = torch.randn(n, generator=g, dtype=torch.float64)
    eager = truth.float()
    compiled = (truth * (1 + noise * torch.randn(n, generator=g, dtype=torch.float64))).float()
    assert compare(eager, compiled, truth, 1e-4).verdict is Verdict.PASS


def test_shape_and_dtype_differences_are_meta_mismatch():
    x = torch.randn(3, 4)
    assert compare(x, x.reshape(4, 3), fp64_of(x), 1e-4).verdict is Verdict.META_MISMATCH
    assert compare(x, x.double(), fp64_of(x), 1e-4).verdict is Verdict.META_MISMATCH
    j = compare([x, x], [x], None, 1e-4)
    assert j.verdict is Verdict.META_MISMATCH and "structure" in j.reason


def test_nan_where_eager_and_fp64_are_finite_is_nan_mismatch():
    x = torch.randn(10)
    res = x.clone()
    res[2] = float("nan")
    j = compare(x, res, fp64_of(x), 1e-4)
    assert j.verdict is Verdict.NAN_MISMATCH
    assert j.evidence["positions"] == 1 and j.evidence["first_index"] == [2]


def test_nan_in_eager_only_that_fp64_does_not_have_is_not_a_bug():
    x = torch.randn(10)
    eager = x.clone()
    eager[5] = float("nan")  # eager overflowed, compiled and fp64 agree
    assert compare(eager, x, fp64_of(x), 1e-4).verdict is Verdict.PASS


def test_matching_nans_pass():
    x = torch.tensor([1.0, float("nan"), 3.0])
    assert compare(x, x.clone(), fp64_of(x), 1e-4).verdict is Verdict.PASS


def test_integer_flip_explained_by_fp64_is_not_a_bug():
    eager = torch.tensor([12, 5, 7], dtype=torch.int32)
    compiled = torch.tensor([13, 5, 7], dtype=torch.int32)
    # fp64 sides with compiled: eager hit the rounding boundary
    assert compare(eager, compiled, compiled.clone(), 1e-4).verdict is Verdict.PASS
    # fp64 disagrees with both: a boundary case, not judged a bug either
    other = torch.tensor([14, 5, 7], dtype=torch.int32)
    assert compare(eager, compiled, other, 1e-4).verdict is Verdict.PASS


def test_integer_flip_where_fp64_sides_with_eager_is_mismatch():
    eager = torch.tensor([12, 5, 7], dtype=torch.int32)
    compiled = torch.tensor([13, 5, 9], dtype=torch.int32)
    j = compare(eager, compiled, eager.clone(), 1e-4)
    assert j.verdict is Verdict.MISMATCH
    assert j.evidence["differ"] == 2 and j.evidence["first_index"] == [0]


def test_bool_outputs_follow_the_same_rule():
    eager = torch.tensor([True, False])
    compiled = torch.tensor([True, True])
    assert compare(eager, compiled, eager.clone(), 1e-4).verdict is Verdict.MISMATCH
    assert compare(eager, compiled, compiled.clone(), 1e-4).verdict is Verdict.PASS


def test_python_scalars_and_nested_outputs():
    x = torch.randn(4)
    ref = {"a": (x, 3), "b": [1.5, None]}
    assert compare(ref, {"a": (x.clone(), 3), "b": [1.5, None]}, None, 1e-4).verdict is Verdict.PASS
    j = compare(ref, {"a": (x.clone(), 4), "b": [1.5, None]}, None, 1e-4)
    assert j.verdict is Verdict.MISMATCH and "['a'][1]" in j.reason


def test_worst_failure_is_reported_first():
    x = torch.randn(4)
    bad_value = x + 1
    bad_meta = x.double()
    j = compare([x, x], [bad_value, bad_meta], [x.double(), x.double()], 1e-4)
    assert j.verdict is Verdict.META_MISMATCH
    assert j.evidence["failing_outputs"] == ["out[1]", "out[0]"]


def test_flatten_paths():
    x = torch.zeros(1)
    assert [p for p, _ in flatten((x, [x, {"k": x}]))] == ["out[0]", "out[1][0]", "out[1][1]['k']"]


def test_identical_is_bitwise_with_nan_equal():
    x = torch.tensor([1.0, float("nan")])
    assert identical(x, x.clone())
    assert not identical(x, torch.tensor([1.0 + 1e-7, float("nan")]))
    assert not identical([x], [x, x])
    assert identical(None, None)


def test_a_different_dense_layout_is_a_meta_mismatch_size_one_dims_do_not_count():
    from torchsmith.oracle.compare import stride_mismatch

    x = torch.randn(4, 6)
    assert stride_mismatch("out", x, x.clone()) is None
    t = x.t().contiguous().t()  # same values, column-major
    j = stride_mismatch("out", t, x)
    assert j is not None and j.verdict is Verdict.META_MISMATCH and "(1, 4)" in j.reason
    a, b = torch.randn(1, 5), torch.randn(5, 1).t()  # differ only on a size-1 dim
    assert stride_mismatch("out", a, b) is None
    expanded = torch.randn(4, 1).expand(4, 6)  # not dense: nothing to keep
    assert stride_mismatch("out", expanded, expanded.contiguous()) is None
    assert compare(t, x, t.double(), 1e-4).verdict is Verdict.META_MISMATCH


def test_wrong_values_outrank_a_stride_difference():
    eager = torch.arange(12.0).reshape(3, 4)
    same_values_other_layout = eager.t().contiguous().t()  # strides (1, 3) instead of (4, 1)
    fp64 = eager.double()
    assert compare(eager, same_values_other_layout, fp64, 1e-4).verdict is Verdict.META_MISMATCH
    wrong = (eager + 5.0).t().contiguous().t()
    assert compare(eager, wrong, fp64, 1e-4).verdict is Verdict.MISMATCH


def test_inputs_are_views_only_where_the_program_made_views():
    """Copies keep aliasing (a tensor passed twice, a view and its base: one storage) and
    strides; a tensor that is no view and shares nothing stays a tensor of its own: export
    and Dynamo trace a view input through its base, which the program never asked for."""
    from torchsmith.oracle.runtime import prepare_inputs

    a, c = torch.randn(3, 4), torch.randn(5)
    b = torch.randn(4, 3).t()
    for dtype in (None, torch.float64):
        (x,) = prepare_inputs([[a, a, b, c, c[1:3], torch.randn(2, 3)]], "cpu", dtype)
        assert x[0].data_ptr() == x[1].data_ptr()  # passed twice: one storage
        assert x[2]._is_view() and x[2].stride() == (1, 3)  # the program's own view
        assert x[4]._is_view() and x[4].data_ptr() - x[3].data_ptr() == x[3].element_size()
        assert not x[5]._is_view() and x[5].stride() == (3, 1)  # fresh, shares nothing
        assert all(torch.equal(u.double(), v.double()) for u, v in zip(x, [a, a, b, c, c[1:3]]))


def test_an_unused_inputs_gradient_is_judged_as_zeros():
    """Eager leaves an unused input's ``.grad`` None; a higher-order op's backward gives zeros
    (``torch.cond``, by design: #141301). Both are judged as zeros, so the two agree."""
    from torchsmith.options import CheckOptions
    from torchsmith.oracle import runtime
    from torchsmith.program.format import Program

    source = (
        "import torch\n\n\ndef fn(x, y):\n    return x.sin()\n\n\n"
        "def get_inputs():\n    return [torch.ones(2, 3), torch.ones(2, 3)]\n"
    )
    loaded = runtime.load(Program(source, "fn", "unused", "generated"), 0)
    run = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=True)
    grads = run.grads
    assert torch.equal(grads["input1"], torch.zeros(2, 3))
    assert bool(grads["input0"].abs().sum() > 0)  # a used input's gradient is itself


def test_two_runs_of_a_sparse_output_are_compared_dense():
    """``torch.equal`` has no sparse kernel: a program returning a sparse tensor was an
    internal error of the nondeterminism test (a 2-hour campaign's one error)."""
    a = torch.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse()
    assert identical(a, a.clone())
    assert not identical(a, (a.to_dense() * 2).to_sparse())
    assert not identical(a, a.to_dense())  # layouts differ


def test_a_sparse_output_is_judged_by_its_values():
    from torchsmith.options import CheckOptions
    from torchsmith.oracle import runtime
    from torchsmith.program.format import Program

    source = (
        "import torch\n\n\ndef fn(x):\n    return (x * 2).to_sparse(), x\n\n\n"
        "def get_inputs():\n    return [torch.tensor([[0.0, 1.5], [2.0, 0.0]])]\n"
    )
    loaded = runtime.load(Program(source, "fn", "sparse", "generated"), 0)
    run = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False)
    dense, same = run.out
    assert dense.layout == torch.strided and torch.equal(dense, torch.tensor([[0, 3.0], [4, 0]]))
    assert same.layout == torch.strided


def test_a_probe_explained_ulp_candidate_gets_its_reason():
    """The probe clears an ulp candidate (figures in ulps, no RMSE): building its reason had
    raised KeyError, which left the candidate standing as a mismatch (a var_mean of values
    that cancel, 1.7e3 ulps from fp64, within reach of eager under reordering)."""
    from torchsmith.oracle.sensitivity import LeafJudgement, explain

    leaf = LeafJudgement("out", "float", True, "band", {"compiled_max_ulps": 1689.6,
                                                       "band_max_ulps": 1715.6})  # fmt: skip
    text = explain(leaf)
    assert "1689.6" in text and "1715.6" in text


def test_a_mutation_hidden_from_the_version_counter_is_still_a_mutation():
    """A compiled batch norm updates its running stats without bumping their versions
    (AOTAutograd hides the mutation from autograd): judged by the counter alone the run left
    them unchanged, and the pristine stats were compared with eager's updated ones (a false
    alarm of the lite-mode campaign). Mutations are also found by content."""
    from torchsmith.options import CheckOptions
    from torchsmith.oracle import runtime
    from torchsmith.program.format import Program

    source = (
        "import torch\n\n\ndef fn(x, stats, same):\n"
        "    with torch.autograd._unsafe_preserve_version_counter(stats):\n"
        "        stats.add_(1.0)\n"
        "    same.mul_(1.0)\n"
        "    return x * 2\n\n\n"
        "def get_inputs():\n"
        "    return [torch.ones(3), torch.zeros(3), torch.full((2,), float('nan'))]\n"
    )
    loaded = runtime.load(Program(source, "fn", "hidden", "generated"), 0)
    run = runtime.run_model(loaded, CheckOptions(), backend=None, dtype=None, grad=False)
    x, stats, same = run.mutated
    assert x is None and torch.equal(stats, torch.ones(3))
    assert same is not None  # the counter moved (NaN stays NaN: equal content is no evidence)
    after = runtime.inputs_after(loaded, run, None)
    assert torch.equal(after[1], torch.ones(3))


def test_lite_mode_is_judged_bit_for_bit_on_outputs_and_mutated_inputs():
    """``--exact`` (for ``mode="lite"``, which promises eager's numerics: every op falls back
    to ATen, no graph pass) judges a compiled run that differs from eager by one ulp in an
    output a mismatch; without it the tolerance judges."""
    from torchsmith.options import CheckOptions
    from torchsmith.oracle import jobs, runtime
    from torchsmith.program.format import Program

    source = (
        "import torch\n\n\ndef fn(x):\n    return x * 3\n\n\n"
        "def get_inputs():\n    return [torch.ones(4)]\n"
    )
    loaded = runtime.load(Program(source, "fn", "lite", "generated"), 0)
    runner = runtime.ProgramRunner(loaded, CheckOptions())
    eager = runtime.RunResult(torch.full((4,), 3.0), None, [None])
    off = torch.full((4,), 3.0)
    off[2] = torch.nextafter(off[2], torch.tensor(4.0))
    assert jobs._exactly_eager(runner, eager, runtime.RunResult(off, None, [None]), None)
    same = runtime.RunResult(torch.full((4,), 3.0), None, [None])
    assert jobs._exactly_eager(runner, eager, same, None) is None
    assert jobs._exact_mode(CheckOptions(mode="lite", exact=True), "inductor")
    assert jobs._exact_mode(CheckOptions(exact=True), "aot_eager")  # the ladder localizes it
    assert not jobs._exact_mode(CheckOptions(mode="lite"), "inductor")  # opt-in
    assert not jobs._exact_mode(CheckOptions(exact=True), None)  # eager itself
    frozen = CheckOptions(mode="lite", exact=True, config={"inductor.freezing": True})
    assert not jobs._exact_mode(frozen, "inductor")  # folding constants is freezing's own opt-in


def test_a_program_whose_inputs_require_grad_runs_with_grad_mode_on():
    """Without ``--grad`` forward runs without grad, unless an input the program builds
    requires grad: then as its author ran it (the input's copy requires grad too, and an output
    that depends on grad mode, ``y.requires_grad``, is what eager gives), in every run alike."""
    from torchsmith.options import CheckOptions
    from torchsmith.oracle import runtime
    from torchsmith.program.format import Program

    def run(flag: str, dtype: torch.dtype | None = None):
        source = (
            "import torch\n\n\ndef fn(x, y):\n    z = x * 2\n    return z, z.requires_grad, "
            "torch.is_grad_enabled()\n\n\ndef get_inputs():\n"
            f"    return [torch.ones(2, requires_grad={flag}), torch.ones(2)]\n"
        )
        loaded = runtime.load(Program(source, "fn", "rg", "generated"), 0)
        return runtime.run_model(loaded, CheckOptions(), backend=None, dtype=dtype, grad=False)

    z, requires, enabled = run("True").out
    assert requires is True and enabled is True and not z.requires_grad  # judged detached
    assert run("True", torch.float64).out[1:] == (True, True)
    assert run("False").out[1:] == (False, False)  # the inference path, as before
    # the runner the judge uses adds a backward for such a program, as --grad would
    source = (
        "import torch\n\n\ndef fn(x):\n    return x * 3\n\n\n"
        "def get_inputs():\n    return [torch.ones(2, requires_grad=True)]\n"
    )
    loaded = runtime.load(Program(source, "fn", "rg2", "generated"), 0)
    grads = runtime.ProgramRunner(loaded, CheckOptions()).run(None, None).grads
    assert grads is not None and set(grads) == {"input0"}


def test_each_run_starts_from_the_objects_the_program_built():
    """A Python object among the inputs (here one that counts its iterations, and is passed
    twice) is copied for each run, once: a second run sees the state the program built, not
    the state the first run left, and both arguments are still one object."""
    from torchsmith.options import CheckOptions
    from torchsmith.oracle import runtime
    from torchsmith.program.format import Program

    source = (
        "import torch\n\n\nclass Counter:\n    def __init__(self):\n        self.n = 0\n\n"
        "    def __iter__(self):\n        self.n += 1\n        return iter([self.n])\n\n\n"
        "def fn(x, c, d):\n    return x + next(iter(c)), c is d, list(d)\n\n\n"
        "def get_inputs():\n    c = Counter()\n    return [torch.zeros(1), c, c]\n"
    )
    loaded = runtime.load(Program(source, "fn", "objects", "generated"), 0)
    options = CheckOptions()
    runs = [
        runtime.run_model(loaded, options, backend=None, dtype=None, grad=False).out
        for _ in range(2)
    ]
    for out, same, items in runs:
        assert out.item() == 1.0 and same is True and items == [2]


def test_a_tensor_subclass_input_keeps_its_type_and_attributes():
    """An ``as_subclass`` input reaches every run as that subclass, with its Python attributes,
    even when its ``__torch_function__`` returns plain tensors (so ``clone`` would not re-wrap)."""
    from torchsmith.options import CheckOptions
    from torchsmith.oracle import runtime
    from torchsmith.program.format import Program

    source = (
        "import torch\n\n\nclass Sub(torch.Tensor):\n    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        with torch._C.DisableTorchFunction():\n"
        "            return func(*args, **(kwargs or {}))\n\n\n"
        "def fn(x):\n    return type(x).__name__, x.tag, x + 1\n\n\n"
        "def get_inputs():\n    x = torch.zeros(2).as_subclass(Sub)\n    x.tag = 'a'\n"
        "    return [x]\n"
    )
    loaded = runtime.load(Program(source, "fn", "sub", "generated"), 0)
    for dtype in (None, torch.float64):
        name, tag, out = runtime.run_model(
            loaded, CheckOptions(), backend=None, dtype=dtype, grad=False
        ).out
        assert (name, tag) == ("Sub", "a") and out.dtype == (dtype or torch.float32)
