"""Importing repro scripts (tests/data/foreign/*.py, PyTorch-issue style) as canonical programs.

The scripts themselves are never executed; the canonical source the importer produces is.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
import torch

from torchsmith.program import foreign_ast as fa
from torchsmith.program.foreign import import_script
from torchsmith.program.format import ProgramFormatError, is_canonical
from torchsmith.program.load import load_program, program_from_source

DATA = Path(__file__).resolve().parents[1] / "data" / "foreign"


def _import(filename: str, device: str = "cpu"):
    path = DATA / filename
    return import_script(path.read_text(), name=path.stem, path=str(path), device=device)


def _run(program):
    """Execute the canonical source; build the model and run it once on its inputs."""
    ns: dict = {}
    exec(compile(program.source, f"<{program.name}>", "exec"), ns)
    init = ns["get_init_inputs"]()
    cls = ns[program.model]
    model = cls(**init) if isinstance(init, dict) else cls(*init)
    model.eval()
    torch.manual_seed(0)
    inputs = ns["get_inputs"]()
    with torch.no_grad():
        out = model(*inputs)
    return ns, init, model, inputs, out


def _shapes(inputs):
    return [tuple(t.shape) for t in inputs]


# file, the script's model class, input shapes, strings that must not survive
CASES = [
    ("s01_run_test_helper.py", "Model", [(2, 3, 4, 4, 4)], ["run_test", "same(", "fallback"]),
    ("s02_main_guard.py", "MyModel", [(1, 3, 16, 16)], ["__main__", "allclose", "is_available"]),
    ("s03_submodule.py", "Net", [(4, 10, 32)], ["assert_close", "opt_net"]),
    ("s04_two_models.py", "Tested", [(5, 8)], ["Unused", "Other", "scratch"]),
    ("s05_ctor_vars.py", "MLP", [(3, 16)], ["except", "raise", "out.shape"]),
    ("s06_inline_compile.py", "M", [(1, 2, 3, 3)], ["backend"]),
    (
        "s07_functional.py",
        "Model",
        [(2, 4, 8, 16)] * 3,
        ["time.time", "synchronize", "max-autotune"],
    ),
    ("s08_double.py", "Model", [(2, 4, 10)], ["optimize", "suppress_errors"]),
    ("s09_broadcast.py", "AddMul", [(3, 1), (1, 5)], ["fullgraph", "fn("]),
    ("s10_kwargs_ctor.py", "ConvModel", [(2, 3, 8, 8)], []),
    ("s11_main_function.py", "Repro", [(10, 3), (3,)], ["main", "expected"]),
    ("s12_mixed_ctor_to_dtype.py", "Gated", [(4, 8)], ["fallback_random"]),
    ("s13_global_fn_compile.py", "Model", [(2, 6)], ["def fn", "inductor"]),
    ("s14_inputs_list_only.py", "Model", [(3, 4), (4, 5)], ["compiled"]),
    ("s15_kw_inputs_export.py", "Model", [(4, 4), (4, 4)], ["export"]),
]


@pytest.mark.parametrize(("filename", "cls", "shapes", "gone"), CASES, ids=[c[0] for c in CASES])
def test_import_repro_script(filename, cls, shapes, gone):
    program = _import(filename)
    assert program.origin == "foreign"
    assert program.path == str(DATA / filename) and program.name == filename[:-3]
    assert program.model == "Model"  # renamed when the script used another name
    assert f"model: class {cls} constructed" in program.notes[0]
    assert (f"renamed: class {cls} to Model" in program.notes) == (cls != "Model")
    assert is_canonical(ast.parse(program.source))
    code = program.source.split("\n", 1)[1]  # without the header naming the file
    for text in ["torch.compile", "print(", "assert", ".cuda(", "'cuda", "torch.testing", *gone]:
        assert text not in code, text
    _, _, model, inputs, out = _run(program)
    assert isinstance(model, torch.nn.Module)
    assert _shapes(inputs) == shapes
    assert isinstance(out, torch.Tensor)
    # Reloading the output gives back the same program, as a canonical one.
    again = program_from_source(program.source, name=program.name)
    assert (again.origin, again.model, again.source) == ("canonical", "Model", program.source)


def test_seed_s3_shape_keeps_seeded_inputs_and_notes_config():
    program = _import("s01_run_test_helper.py")
    assert "dropped: config.fallback_random = True" in program.notes
    ns, init, *_ = _run(program)
    assert init == []
    first, second = ns["get_inputs"](), ns["get_inputs"]()
    assert torch.equal(first[0], second[0])  # the script's manual_seed(0) is kept
    torch.manual_seed(0)
    assert torch.equal(first[0], torch.randn(2, 3, 4, 4, 4))


def test_submodule_class_is_kept_but_not_the_model():
    program = _import("s03_submodule.py")
    assert "class Block(nn.Module)" in program.source
    _, init, model, _, _ = _run(program)
    assert init == {"dim": 32, "depth": 2}
    assert type(model.blocks[0]).__name__ == "Block"


def test_unrelated_model_classes_are_dropped():
    program = _import("s04_two_models.py")
    ns, *_ = _run(program)
    assert "Other" not in ns and "Unused" not in ns


def test_constructor_args_from_module_variables():
    _, init, model, _, _ = _run(_import("s05_ctor_vars.py"))
    assert init == [16, 32, 4]
    assert model.l2.out_features == 4


def test_helper_function_used_by_forward_is_kept():
    program = _import("s07_functional.py")
    assert "def scaled(" in program.source


def test_double_chain_is_replayed_in_init():
    program = _import("s08_double.py")
    assert "kept: `self.double()` at the end of __init__" in program.notes
    assert "dropped: torch._dynamo.config.suppress_errors = False" in program.notes
    _, _, model, inputs, out = _run(program)
    assert model.conv.weight.dtype == torch.float64
    assert inputs[0].dtype == out.dtype == torch.float64


def test_half_dtype_variable_and_mixed_constructor_arguments():
    program = _import("s12_mixed_ctor_to_dtype.py")
    assert "kept: `self.to(dtype)` at the end of __init__" in program.notes
    _, init, model, inputs, _ = _run(program)
    assert init == {"dim": 8, "bias": True}
    assert model.proj.weight.dtype == inputs[0].dtype == torch.float16


def test_broadcasting_inputs_and_cuda_device_variable():
    program = _import("s09_broadcast.py")
    assert "device = torch.device('cpu')" in program.source
    *_, out = _run(program)
    assert out.shape == (3, 5)


def test_kwargs_constructor():
    _, init, model, _, out = _run(_import("s10_kwargs_ctor.py"))
    assert init == {"in_ch": 3, "out_ch": 4}
    assert out.shape == (2, 4)


def test_main_function_is_inlined():
    program = _import("s11_main_function.py")
    assert "inlined: main()" in program.notes
    assert "torch.manual_seed(0)" in program.source


def test_keyword_inputs_are_mapped_to_forward_parameters():
    program = _import("s15_kw_inputs_export.py")
    assert "m(x, mask=mask)" in program.notes[1]
    _, _, _, inputs, _ = _run(program)
    assert inputs[1].dtype == torch.bool


def test_device_cuda_keeps_device_code():
    program = _import("s01_run_test_helper.py", device="cuda")
    assert "torch.randn(2, 3, 4, 4, 4).cuda()" in program.source
    assert ".eval()" not in program.source
    program = _import("s09_broadcast.py", device="cuda")
    assert "torch.device('cuda:0')" in program.source


def test_load_program_keeps_a_foreign_file_as_a_script_or_imports_it():
    path = DATA / "s04_two_models.py"  # names no device: kept to the letter, lines and all
    script = load_program(path)
    assert script.origin == "script" and script.path == str(path)
    assert script.source == path.read_text() and script.model == "__script__"
    program = load_program(path, scripts=False)
    assert program.origin == "foreign" and program.path == str(path)
    cuda = load_program(DATA / "s01_run_test_helper.py")  # .cuda() mapped to the CPU
    assert cuda.origin == "script" and ".cuda()" not in cuda.source and cuda.path is None


def _script(text: str, name: str = "repro"):
    return import_script(textwrap.dedent(text), name=name)


def test_compile_decorator_on_forward_is_removed():
    program = _script(
        """
        import torch
        class Model(torch.nn.Module):
            @torch.compile(fullgraph=True)
            def forward(self, x):
                return x.cos()
        m = Model()
        x = torch.randn(4)
        m(x)
        """
    )
    assert "compile" not in program.source
    assert "dropped: @torch.compile(fullgraph=True) on forward" in program.notes
    _run(program)


def test_global_tensor_used_by_forward_stays_at_module_level_seeded():
    program = _script(
        """
        import torch
        torch.manual_seed(3)
        W = torch.randn(4, 4)
        class Model(torch.nn.Module):
            def forward(self, x):
                return x @ W
        m = Model()
        torch.manual_seed(7)
        x = torch.randn(2, 4)
        print(m(x + 1))
        """
    )
    module = ast.parse(program.source)
    top = [ast.unparse(s) for s in module.body]
    assert "torch.manual_seed(3)" in top and "W = torch.randn(4, 4)" in top
    ns, *_ = _run(program)
    torch.manual_seed(3)
    assert torch.equal(ns["W"], torch.randn(4, 4))
    (x,) = ns["get_inputs"]()
    torch.manual_seed(7)
    assert torch.equal(x, torch.randn(2, 4) + 1)


def test_model_name_taken_by_a_submodule_keeps_the_original_name():
    program = _script(
        """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return x + 1
        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Model()
            def forward(self, x):
                return self.inner(x) * 2
        w = Wrapper()
        print(torch.compile(w)(torch.ones(3)))
        """
    )
    assert program.model == "Wrapper"
    *_, out = _run(program)
    assert torch.equal(out, torch.full((3,), 4.0))


def test_script_get_init_inputs_is_renamed():
    program = _script(
        """
        import torch
        class Model(torch.nn.Module):
            def __init__(self, a, b):
                super().__init__()
                self.l = torch.nn.Linear(a, b)
            def forward(self, x):
                return self.l(x)
        def get_init_inputs():
            return [3, 4]
        model = Model(*get_init_inputs())
        x = torch.randn(2, 3)
        print(torch.compile(model)(x))
        """
    )
    assert "def _script_get_init_inputs():" in program.source
    _, init, *_ = _run(program)
    assert init == [3, 4]


def test_inputs_appended_in_a_loop_and_dtype_keyword_chain():
    program = _script(
        """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x, y=None):
                return x if y is None else x + y
        m = Model().to(dtype=torch.float64, device='cuda')
        xs = []
        for i in range(2):
            xs.append(torch.randn(3, dtype=torch.float64, device='cuda'))
        m(y=xs[1], x=xs[0])
        """
    )
    assert "kept: `self.to(dtype=torch.float64)` at the end of __init__" in program.notes
    _, _, _, inputs, out = _run(program)
    assert len(inputs) == 2 and out.dtype == torch.float64


# -- errors --------------------------------------------------------------------------------------


def test_error_no_module_class():
    with pytest.raises(ProgramFormatError, match=r"^repro: no nn.Module subclass and no call"):
        _script("import torch\nx = torch.randn(3)\nprint(x.sin())\n")


def test_error_class_never_constructed():
    src = """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return x
        print("hi")
        """
    with pytest.raises(ProgramFormatError) as e:
        _script(src, name="issue123.py")
    assert str(e.value) == (
        "issue123.py: found class Model but no statement constructs it and no call passes it"
        " inputs: add `inputs = [...]` or `get_inputs()`"
    )


def test_error_model_never_called():
    src = """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return x
        m = Model()
        opt = torch.compile(m)
        """
    with pytest.raises(
        ProgramFormatError, match=r"model `m` \(class Model\) is constructed at line 6"
    ):
        _script(src)


def test_error_inputs_built_inside_a_function():
    src = """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return x.sin()
        model = Model()
        def main():
            args = [torch.randn(3)]
            print(model(*args))
        main()
        """
    with pytest.raises(ProgramFormatError) as e:
        _script(src)
    msg = str(e.value)
    assert msg.startswith("repro:10: model `model` is called as `model(*args)` (line 9)")
    assert "`args` built inside function `main`" in msg


def test_error_double_star_inputs():
    src = """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return x
        m = Model()
        kw = dict(x=torch.randn(4))
        m(**kw)
        """
    with pytest.raises(
        ProgramFormatError, match=r"repro:8: `m\(\*\*kw\)` calls the model with `\*\*`"
    ):
        _script(src)


def test_error_syntax():
    with pytest.raises(ProgramFormatError, match=r"^bad.py:2: syntax error"):
        import_script("import torch\nclass Model(:\n", path="bad.py")


# -- AST helpers -----------------------------------------------------------------------------


def test_free_names_respect_scopes():
    cls = ast.parse(
        textwrap.dedent(
            """
            class M(nn.Module):
                k = 3
                def forward(self, x):
                    y = [x * i for i in range(K)]
                    return helper(y) + self.k
            """
        )
    ).body[0]
    assert fa.free_names(cls) == {"nn", "range", "K", "helper"}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x.cuda()", "x"),
        ("x.to('cuda')", "x"),
        ("x.to(device='cuda:0')", "x"),
        ("x.to('cuda', torch.float16)", "x.to(torch.float16)"),
        ("torch.ones(2, device='cuda')", "torch.ones(2, device='cpu')"),
        ("torch.device('cuda' if torch.cuda.is_available() else 'cpu')", "torch.device('cpu')"),
        ("x.to(dev)", "x.to(dev)"),
    ],
)
def test_device_rewriter_cpu(before, after):
    node = fa.DeviceRewriter("cpu").visit(ast.parse(before, mode="eval"))
    assert ast.unparse(node) == after
