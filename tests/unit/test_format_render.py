import ast
import runpy

import pytest
import torch

from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import load_program, program_from_source
from torchsmith.program.render import render_script

CANONICAL = """
import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return x.relu()
def get_inputs():
    return [torch.randn(2)]
"""


def test_canonical_program_is_taken_as_is():
    p = program_from_source(CANONICAL, name="c")
    assert p.origin == "canonical" and p.model == "Model" and p.source == CANONICAL


def test_module_level_inputs_and_single_other_class_name():
    src = "import torch\nclass Net(torch.nn.Module):\n    pass\ninputs = [torch.ones(1)]\n"
    p = program_from_source(src)
    assert p.model == "Net" and p.origin == "canonical"


def test_errors_say_what_is_missing(tmp_path):
    with pytest.raises(ProgramFormatError, match="no such file"):
        load_program(tmp_path / "missing.py")
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    with pytest.raises(ProgramFormatError, match=r"bad.py:1: syntax error"):
        load_program(bad)
    two = (
        "import torch\nclass A(torch.nn.Module): pass\nclass B(torch.nn.Module): pass\ninputs=[]\n"
    )
    with pytest.raises(ProgramFormatError, match="several nn.Module classes"):
        program_from_source(two)
    with pytest.raises(ProgramFormatError, match="directory without program.py"):
        load_program(tmp_path)


def test_digest_depends_on_source_and_model():
    a = program_from_source(CANONICAL)
    assert a.digest == program_from_source(CANONICAL).digest
    assert a.digest != program_from_source(CANONICAL + "\n# x\n").digest


def test_render_is_valid_python_with_config_and_future_import_first():
    src = "from __future__ import annotations\n" + CANONICAL
    opts = CheckOptions(config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}, seed=3)
    text = render_script(program_from_source(src), opts)
    tree = ast.parse(text)
    first = tree.body[0]
    assert isinstance(first, ast.ImportFrom) and first.module == "__future__"
    assert text.count("from __future__") == 1
    assert "torch._inductor.config.fallback_random = True" in text
    assert "torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = 'accuracy'" in text
    assert "SEED = 3" in text and "same(eager, compiled, fp64" in text


def test_rendered_script_keeps_aliased_inputs_aliased():
    """A repro of a finding about aliasing must alias: the input view written in place changes
    the tensor it views, in the rendered script's own runs (eager and the float64 one)."""
    import torch

    src = (
        "import torch\n\n"
        "def fn(x, y):\n    y.mul_(0.0)\n    return x.sum(), y.sum()\n\n"
        "def get_inputs():\n    x = torch.ones(4, 3)\n    return [x, x[1:]]\n"
    )
    program = program_from_source(src, "alias")
    ns: dict = {"__name__": "rendered"}
    exec(compile(render_script(program, CheckOptions()), "rendered", "exec"), ns)
    for dtype in (None, torch.float64):
        total, view_total = ns["run_test"](None, dtype)
        assert total.item() == 3.0 and view_total.item() == 0.0, dtype


# -- the plain repro and the CompilerBisector form (program/plain.py) -----------------------------
PLAIN_FN = """
import torch

SCALE = 2.0


def fn(x, n):
    return x * n * SCALE


def get_calls():  # argument lists, as the runtime reads them (two arguments: never a pair)
    return [[torch.ones(3), 2], [torch.ones(4), 3]]


def before_call(i, target):
    global SCALE
    SCALE = 2.0 + i
"""


def _eager_part(script: str) -> dict:
    """Run the script up to the compiled call: eager and float64 only (no compile)."""
    head = script.split("eager = run()")[0]
    scope: dict = {"__name__": "plain_test"}
    exec(compile(head, "<plain>", "exec"), scope)
    return scope


def test_the_plain_repro_reads_get_calls_as_the_runtime_does():
    # It unpacked each call as an (args, kwargs) pair: a call of two arguments ran as
    # fn(*first, **second), and every other call raised (a campaign finding's repro_plain.py).
    from torchsmith.oracle.runtime import load
    from torchsmith.program.format import Program
    from torchsmith.program.plain import plain_script

    src = PLAIN_FN.replace(
        "def get_calls():", "def get_kwargs():\n    return {}\n\n\ndef get_calls():"
    )
    prog = Program(source=src, model="fn", name="seq")
    loaded = load(prog)
    scope = _eager_part(plain_script(prog))
    assert [c.args[1] for c in loaded.calls] == [2, 3]
    assert [o.shape[0] for o in scope["run"]()] == [3, 4]


def test_the_plain_repro_runs_every_call_with_before_call_in_eager_and_float64():
    import torch

    from torchsmith.program.format import Program
    from torchsmith.program.plain import bisector_script, plain_script

    prog = Program(source=PLAIN_FN, model="fn", name="seq")
    script = plain_script(prog)
    ast.parse(script)
    ast.parse(bisector_script(prog))
    scope = _eager_part(script)
    eager, fp64 = scope["run"](), scope["run"](dtype=torch.float64)
    assert [o.tolist() for o in eager] == [[4.0] * 3, [9.0] * 4]  # SCALE 2, then 3
    assert fp64[0].dtype == torch.float64
    assert "CompilerBisector.do_bisect(test_fn)" in bisector_script(prog)


@pytest.mark.parametrize("name", ["linear_relu", "s3_pad_pairwise", "frexp_mul"])
def test_the_plain_repro_of_each_example_runs_in_eager(name):
    from torchsmith.examples import EXAMPLES_DIR
    from torchsmith.program.load import load_program
    from torchsmith.program.plain import plain_script

    prog = load_program(EXAMPLES_DIR / f"{name}.py", scripts=False)
    scope = _eager_part(plain_script(prog))
    out = scope["run"]()
    assert out and all(o is not None for o in out)


FLOAT_FN = """
import torch


def fn(x):
    return float(x.sum()) * 1e-4


def get_inputs():
    return [torch.ones(1)]
"""


@pytest.mark.parametrize("writer", ["harness", "plain"])
def test_the_written_repros_judge_a_python_float_as_the_worker_does(tmp_path, writer):
    # same() on bare floats takes a float32 allclose path; the worker judges a float as a
    # float64 tensor against fp64. At the tolerance edge the two disagree: the scripts must
    # side with the worker, or a reduced finding fails in the worker and passes alone.
    from torch._dynamo.utils import same

    from torchsmith.program.plain import plain_script

    program = Program(source=FLOAT_FN, model="fn")
    text = (render_script if writer == "harness" else plain_script)(program, CheckOptions())
    path = tmp_path / "repro.py"
    path.write_text(text.split("\neager = run()")[0])  # the plain script runs at top level
    ns = runpy.run_path(str(path), run_name="not_main")
    edge, wrong = 1.0000000000000002e-4, 0.0
    assert same([edge], [wrong], [edge])  # the loose bare-float path
    judged = ns["_judged"]
    assert not same(judged([edge]), judged([wrong]), judged([edge]))
    assert same(judged([edge, (2.0,)]), judged([edge, (2.0,)]), judged([edge, (2.0,)]))


def test_the_harness_measures_empty_outputs_without_raising(tmp_path):
    import torch

    path = tmp_path / "repro.py"
    path.write_text(render_script(Program(source=FLOAT_FN, model="fn"), CheckOptions()))
    ns = runpy.run_path(str(path), run_name="not_main")
    assert ns["_max_abs"](torch.zeros(0), torch.zeros(0)) == 0.0
    assert ns["_max_abs"](1.5, 1.0) == 0.5


EXPORT_FN = """
import torch


def fn(x, scale: float):
    return torch.relu(x) * scale


def get_calls():
    return [[torch.randn(3, 4), 2.0], [torch.randn(5, 4), 2.0]]
"""


@pytest.mark.parametrize("backend", ["export", "export_decomp"])
def test_the_plain_repro_of_an_export_path_finding_runs_the_export_path(backend):
    # It called torch.compile(backend='aoti') once: InvalidBackend in plain PyTorch, so the
    # report's minimal repro of an AOTInductor bug showed a different error than the bug.
    import torch

    from torchsmith.program.plain import plain_script

    prog = Program(source=EXPORT_FN, model="fn", name="exp")
    script = plain_script(prog, CheckOptions(backend=backend))
    assert "torch.compile(target" not in script and "_exported(target" in script
    assert script.splitlines()[0].startswith("# torch.export")
    scope: dict = {"__name__": "plain_test"}
    exec(compile(script.split("eager = run()")[0], "<plain>", "exec"), scope)
    eager, compiled = scope["run"](), scope["run"](compile_=True)  # export only: no C++ build
    assert [tuple(o.shape) for o in compiled] == [(3, 4), (5, 4)]  # both calls, dim 0 dynamic
    assert all(torch.equal(a, b) for a, b in zip(eager, compiled))


def test_the_plain_repro_of_an_input_written_in_place_judges_the_inputs_too():
    from torchsmith.program.plain import plain_script

    src = "import torch\n\ndef fn(x):\n    x.relu_()\n    return x.sum() * 0\n\ndef get_inputs():\n    return [torch.tensor([-1.0, 2.0])]\n"
    prog = Program(source=src, model="fn", name="w")
    assert "inputs after the calls" not in plain_script(prog)
    scope = _eager_part(plain_script(prog, inputs=True))
    out = scope["run"]()
    assert out["inputs after the calls"][0][0].tolist() == [0.0, 2.0]  # what eager wrote
    assert out["outputs"][0].item() == 0.0


def test_the_repro_harness_makes_views_only_where_the_program_made_views():
    """The rendered ``repro.py`` copies inputs as the oracle does: a fresh tensor stays fresh,
    a view stays a view of a copy of its base, a tensor passed twice stays one tensor."""
    from torchsmith.program.render import render_script

    source = (
        "import torch\n\n\n"
        "def fn(x, v, a, b):\n"
        "    flags = [x._is_view(), v._is_view(), a.data_ptr() == b.data_ptr()]\n"
        "    return torch.tensor([float(f) for f in flags])\n\n\n"
        "_T = torch.ones(4, 3)\n\n\n"
        "def get_inputs():\n"
        "    base = torch.arange(12.0)\n"
        "    return [torch.zeros(2, 3), base[2:8].view(2, 3), _T, _T]\n"
    )
    script = render_script(Program(source=source, model="fn"))
    ns: dict = {"__name__": "not_main"}
    exec(compile(script, "repro.py", "exec"), ns)
    assert ns["run_test"](None).tolist() == [0.0, 1.0, 1.0]
    assert ns["run_test"](None, torch.float64).tolist() == [0.0, 1.0, 1.0]


ALIASED = """
import torch


def fn(x, y):
    y.mul_(2.0)
    return x * float(torch.is_grad_enabled() is False)


def get_calls():
    x = torch.ones(3, 2)
    return [[x, x[1:]]]
"""


def test_the_plain_repro_keeps_aliased_inputs_aliased_and_runs_without_grad_as_torchsmith_does():
    # It copied each argument on its own (x[1:] no longer a view of x) and ran with autograd
    # on: a campaign's aliased-input crash, reproduced by the harness, passed in repro_plain.py.
    import torch

    from torchsmith.program.plain import plain_script

    scope = _eager_part(plain_script(Program(source=ALIASED, model="fn", name="alias")))
    for dtype in (None, torch.float64):
        (out,) = scope["run"](dtype=dtype)
        assert out.tolist() == [[1.0, 1.0], [2.0, 2.0], [2.0, 2.0]]  # rows 1-2 doubled via y


def test_repro_of_a_random_program_under_inductors_generator_compares_no_values():
    """``fallback_random=False`` and a random call: the repro judges metadata only, as the
    check did (oracle/native_random.py); any other program keeps the value comparison."""
    src = "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
    tail = "\ndef get_inputs():\n    return [torch.ones(3)]\n"
    rand = program_from_source(src + "        return torch.rand(3) + x\n" + tail, name="r")
    plain = program_from_source(src + "        return x.sin()\n" + tail, name="p")
    native = CheckOptions(config={"inductor.fallback_random": False})
    assert "VALUES = False" in render_script(rand, native)
    assert "VALUES = True" in render_script(rand, CheckOptions())
    assert "VALUES = True" in render_script(plain, native)
