"""Importing function repro scripts (no nn.Module) as canonical function programs.

The scripts are never executed; the canonical source the importer produces is loaded with the
oracle's own loader (``oracle.runtime.load``), which is what ``check`` runs.
"""

from __future__ import annotations

import textwrap

import pytest
import torch

from torchsmith.oracle.runtime import load
from torchsmith.program.foreign import import_script
from torchsmith.program.format import ProgramFormatError, declared_settings, entry_of, is_canonical


def _import(text: str):
    program = import_script(textwrap.dedent(text), name="repro")
    import ast

    tree = ast.parse(program.source)
    assert is_canonical(tree) and entry_of(tree, "repro") == "fn" == program.model
    return program


def test_compiled_alias_becomes_fn_with_inputs_and_compile_kwargs():
    program = _import(
        """
        import torch
        torch.manual_seed(1)
        def f(x):
            return x.byte()
        compiled_f = torch.compile(f, fullgraph=True, backend="inductor")
        x = torch.randn(20)
        out = f(x)
        print(torch.allclose(out, compiled_f(x)))
        """
    )
    kwargs, config, check = declared_settings(program.source)
    assert kwargs == {"fullgraph": True} and config == {} and check == {}
    loaded = load(program)
    assert len(loaded.calls) == 1 and loaded.inputs[0].shape == (20,)
    torch.manual_seed(1)  # the script's own seed precedes the input: same values
    assert torch.equal(loaded.inputs[0], torch.randn(20))
    assert loaded.target(loaded.inputs[0]).dtype == torch.uint8
    assert "print" not in program.source and "allclose" not in program.source


def test_decorator_and_config_lines_become_compile_kwargs_and_config():
    program = _import(
        """
        import torch
        from torch._inductor import config
        import torch._dynamo.config as dcfg
        config.fallback_random = True
        config.freezing = True
        dcfg.capture_scalar_outputs = True

        @torch.compile(dynamic=True)
        def g(x, n):
            return x * n
        print(g(torch.ones(3), 2))
        """
    )
    kwargs, config, _ = declared_settings(program.source)
    assert kwargs == {"dynamic": True}
    assert config == {"inductor.freezing": True, "dynamo.capture_scalar_outputs": True}
    assert "@torch.compile" not in program.source
    loaded = load(program)
    assert loaded.inputs[1] == 2 and loaded.target(*loaded.inputs).tolist() == [2.0] * 3


def test_global_changed_between_calls_runs_in_before_call():
    program = _import(
        """
        import torch
        class State:
            factor = 1.0
        def fn(x):
            return x * State.factor
        cfn = torch.compile(fn)
        x = torch.tensor([4.0])
        State.factor = 1.0
        print(cfn(x))
        State.factor = 10.0
        print(fn(x), cfn(x))
        """
    )
    loaded = load(program)
    assert len(loaded.calls) == 2 and loaded.before_call is not None
    outs = []
    for i, (args, _) in enumerate(loaded.calls):
        loaded.before_call(i, loaded.target)
        outs.append(loaded.target(*args).item())
    assert outs == [4.0, 40.0]


def test_loop_over_literals_is_unrolled_into_a_call_sequence():
    program = _import(
        """
        import torch
        import torch.nn.functional as F
        x = torch.randn(4, 4)
        def f(x, s):
            return F.rms_norm(x * s, (4,), eps=s + 1e-3)
        cf = torch.compile(f)
        for s in (0.5, 1.0, 2.0):
            assert torch.allclose(f(x, s), cf(x, s))
        """
    )
    loaded = load(program)
    assert [c.args[1] for c in loaded.calls] == [0.5, 1.0, 2.0]
    assert loaded.calls[0].args[0] is loaded.calls[2].args[0]  # one tensor, as in the script


def test_helper_is_inlined_and_the_eager_backend_is_only_a_reference():
    program = _import(
        """
        import torch
        def f(a, b):
            return (a > 1) & (b > 1)
        def run(backend):
            torch._dynamo.reset()
            return torch.compile(f, backend=backend)(torch.ones(3), torch.ones(3, dtype=torch.uint8))
        ref = run("eager")
        got = run("aot_eager")
        assert torch.equal(ref, got)
        """
    )
    kwargs, _, _ = declared_settings(program.source)
    assert kwargs == {"backend": "aot_eager"}
    assert len(load(program).calls) == 1
    assert "inlined: run('aot_eager')" in program.notes


def test_torch_function_and_keyword_dict_are_wrapped():
    program = _import(
        """
        import torch
        def model_func(self, other):
            return torch.ops.aten.eq(self, other=other)
        x = torch.randn(3, 4, dtype=torch.bfloat16)
        cfg = {"self": x, "other": 3.14}
        out = torch.compile(model_func, backend="inductor")(**cfg)
        y = torch.compile(torch.sin)(x)
        """
    )
    loaded = load(program)
    assert loaded.inputs[0].dtype == torch.bfloat16 and loaded.inputs[1] == 3.14
    wrapped = _import("import torch\nx = torch.randn(3)\nprint(torch.compile(torch.sin)(x))\n")
    assert "return torch.sin(*args, **kwargs)" in wrapped.source


def test_backward_sets_grad_and_a_class_named_model_moves_aside():
    program = _import(
        """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                return x.sin()
        m = Model()
        def run(backend):
            mod = m if backend == "eager" else torch.compile(m, backend=backend)
            return mod(torch.randn(3, requires_grad=True))
        run("eager").sum().backward()
        run("inductor").sum().backward()
        """
    )
    _, _, check = declared_settings(program.source)
    assert check == {"grad": True} and "class _script_Model" in program.source
    assert "return m(*args, **kwargs)" in program.source


def test_what_cannot_be_converted_is_named_in_one_sentence():
    src = """
        import torch
        def f(x):
            return x + 1
        cf = torch.compile(f)
        for x in make_inputs():
            cf(x)
        """
    with pytest.raises(ProgramFormatError) as e:
        import_script(textwrap.dedent(src), name="repro")
    msg = str(e.value)
    assert msg.startswith("repro:6: the compiled call sits in a loop over `make_inputs()`")
    assert msg.count(". ") == 0
    with pytest.raises(ProgramFormatError, match=r"no call of a compiled function"):
        import_script("import torch\nx = torch.randn(3)\nprint(x.sin())\n", name="repro")
