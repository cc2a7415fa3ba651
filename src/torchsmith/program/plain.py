"""Repro scripts a maintainer takes as written: short, plain, no harness.

:func:`plain_script` is the form of ``bench/found/*.py``: the program as it stands, then the
few lines that run it in eager, under ``torch.compile`` and in float64, and print the three
(for a crash, the compiled call simply raises). The harness script (``repro.py``, from
:func:`torchsmith.program.render.render_script`) goes along as an attachment.

:func:`bisector_script` is the same program as a ``test_fn() -> bool`` (True when compiled
agrees with eager, judged with ``torch._dynamo.utils.same`` against the float64 run) handed to
``torch._inductor.compiler_bisector.CompilerBisector.do_bisect``, which bisects Inductor's
subsystems and passes to the first one that breaks it.

Both are text: nothing here runs the program.
"""

from __future__ import annotations

import ast

from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.program.render import config_lines
from torchsmith.program.render_export import EXPORT_BACKENDS, HELPER, compiler_name


def _defined(source: str) -> set[str]:
    """Module-level names the program defines (functions, classes, assignments)."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _runner(program: Program, options: CheckOptions, judge_inputs: bool = False) -> list[str]:
    """``run(dtype)``: the program's calls, freshly built and re-seeded, in order; with
    ``judge_inputs``, also the arguments after each call (a finding in an input written in
    place)."""
    names = _defined(program.source)
    is_class = program.model in names and f"class {program.model}" in program.source
    kwargs = "get_kwargs()" if "get_kwargs" in names else "{}"
    if "get_calls" in names:  # a list of argument lists; get_kwargs() applies to each
        calls = f"[(c, {kwargs}) for c in get_calls()]"
    else:
        inputs = "get_inputs()" if "get_inputs" in names else "inputs"
        calls = f"[({inputs}, {kwargs})]"
    build = f"{program.model}()"
    if is_class and "get_init_inputs" in names:
        build = f"_make({program.model}, get_init_inputs())"
    lines = [
        "def _tensors(x):",
        "    if isinstance(x, torch.Tensor):",
        "        return [x]",
        "    if isinstance(x, (list, tuple)):",
        "        return [t for v in x for t in _tensors(v)]",
        "    return [t for v in x.values() for t in _tensors(v)] if isinstance(x, dict) else []",
        "",
        "",
        "def _cast(x, dtype, memo=None):",
        "    # fresh copies (cast to dtype) that share storage where the originals did: a view",
        "    # stays a view, one tensor passed twice stays one; nothing else becomes a view",
        "    if memo is None:",
        "        memo = {'uses': {}}",
        "        for t in _tensors(x):",
        "            k = t.untyped_storage().data_ptr()",
        "            memo['uses'][k] = memo['uses'].get(k, 0) + 1",
        "    if isinstance(x, torch.Tensor):",
        "        x = x.detach()",
        "        want = dtype if dtype is not None and x.is_floating_point() else x.dtype",
        "        k = x.untyped_storage().data_ptr()",
        "        if memo['uses'].get(k, 0) <= 1 and not x._is_view():",
        "            return x.clone().to(want)",
        "        if k not in memo:",
        "            flat = torch.empty(0, dtype=x.dtype).set_(x.untyped_storage())",
        "            memo[k] = flat.clone().to(want)",
        "        return memo[k].as_strided(x.size(), x.stride(), x.storage_offset())",
        "    if isinstance(x, (list, tuple)):",
        "        return type(x)(_cast(v, dtype, memo) for v in x)",
        "    return {k: _cast(v, dtype, memo) for k, v in x.items()} if isinstance(x, dict) else x",
        "",
        "",
        "def _judged(x):",
        "    # a Python float is judged as a float64 tensor (same() is loose on bare floats)",
        "    if isinstance(x, float):",
        "        return torch.tensor(x, dtype=torch.float64)",
        "    if isinstance(x, (list, tuple)):",
        "        return [_judged(v) for v in x]",
        "    return {k: _judged(v) for k, v in x.items()} if isinstance(x, dict) else x",
        "",
        "",
    ]
    if is_class and "get_init_inputs" in names:
        lines += [
            "def _make(cls, init):",
            "    return cls(**init) if isinstance(init, dict) else cls(*init)",
            "",
            "",
        ]
    lines += [
        "def run(compile_=False, dtype=None):",
        f"    torch.manual_seed({options.seed})",
        f"    target = {build}.eval()" if is_class else f"    target = {program.model}",
    ]
    if is_class:
        lines.append("    target = target.to(dtype) if dtype is not None else target")
    if options.backend in EXPORT_BACKENDS:  # torch.export -> AOTInductor, not torch.compile
        lines += [
            f"    items = [(a if isinstance(a, (list, tuple)) else [a], k) for a, k in {calls}]",
            "    exported = [list(_cast(a, dtype)) for a, _ in items]",
            f"    call = _exported(target, exported, items[0][1], {options.backend!r}) if compile_ else target",
        ]
    else:
        lines.append(
            f"    call = torch.compile(target, **{options.compile_kwargs()!r}) if compile_ else target"
        )
    lines += [
        "    outs = []",
        f"    for i, (args, kwargs) in enumerate({calls}):",
    ]
    if "before_call" in names:
        lines.append("        before_call(i, target)")
    lines += [
        f"        torch.manual_seed({options.seed})",
        "        args = args if isinstance(args, (list, tuple)) else [args]",
    ]
    if options.grad and not judge_inputs:  # gradients judged too, as torchsmith judges them
        lines += [
            "        args = _cast(args, dtype)",
            "        args = [_needs_grad(a) for a in args]",
            "        outs.append(call(*args, **_cast(kwargs, dtype)))",
            "        leaves.extend(args)",
            f"    g = torch.Generator().manual_seed({options.seed + 1})",
            "    floats = [t for t in _flat(outs) if isinstance(t, torch.Tensor) and t.requires_grad]",
            "    sum((t * torch.randn(t.shape, generator=g, dtype=torch.float64).to(t)).sum()"
            " for t in floats).backward()",
            "    grads = [t for t in _flat(leaves) if isinstance(t, torch.Tensor)"
            " and t.is_floating_point()]",
            "    if isinstance(target, torch.nn.Module):",
            "        grads += list(target.parameters())",
            "    # an unused input's gradient (None, or zeros from a higher-order op) is zeros",
            "    grads = [t.grad if t.grad is not None else torch.zeros_like(t) for t in grads]",
            '    return {"outputs": [_cast(o, None) for o in outs], "gradients": grads}',
        ]
        lines.insert(lines.index("    outs = []") + 1, "    leaves = []")
        helpers = [
            "def _needs_grad(x):",
            "    ok = isinstance(x, torch.Tensor) and x.is_floating_point()",
            "    return x.requires_grad_(True) if ok else x",
            "",
            "",
            "def _flat(x):",
            "    if isinstance(x, (list, tuple)):",
            "        return [leaf for v in x for leaf in _flat(v)]",
            "    return [leaf for v in x.values() for leaf in _flat(v)] if isinstance(x, dict) else [x]",
            "",
            "",
        ]
        at = lines.index("def run(compile_=False, dtype=None):")
        lines[at:at] = helpers
    elif judge_inputs:
        lines += [
            "        args = _cast(args, dtype)",
            "        with torch.no_grad():  # as torchsmith runs a program whose gradients it does not judge",
            "            outs.append(call(*args, **_cast(kwargs, dtype)))",
            "        written.append(args)",
            '    return {"outputs": outs, "inputs after the calls": written}',
        ]
        lines.insert(lines.index("    outs = []") + 1, "    written = []")
    else:
        lines += [
            "        with torch.no_grad():  # as torchsmith runs a program whose gradients it does not judge",
            "            outs.append(call(*_cast(args, dtype), **_cast(kwargs, dtype)))",
            "    return outs",
        ]
    return lines


def _head(program: Program, options: CheckOptions, what: str, inputs: bool = False) -> list[str]:
    lines = program.source.strip("\n").splitlines()
    future = [ln for ln in lines if ln.startswith("from __future__")]
    body = "\n".join(ln for ln in lines if not ln.startswith("from __future__"))
    helper = [HELPER.strip("\n"), "", ""] if options.backend in EXPORT_BACKENDS else []
    return [
        *future,
        f"# {what} ({program.name}); runs on its own: python this_file.py",
        "import torch",
        "import torch._dynamo.utils",
        "import torch._inductor.config",
        "",
        *config_lines(options),
        "",
        body,
        "",
        "",
        *helper,
        *_runner(program, options, inputs),
        "",
        "",
    ]


#: What the plain repro runs after the program: eager, float64, compiled, printed.
_PLAIN = """
eager = run()
fp64 = run(dtype=torch.float64)
compiled = run(compile_=True)  # a crash raises here
print("eager:   ", eager)
print("compiled:", compiled)
print("float64: ", fp64)
print("same(eager, compiled, fp64_ref):", torch._dynamo.utils.same(_judged(eager), _judged(compiled), _judged(fp64), tol={tol!r}))
"""

#: The CompilerBisector form: the repro as test_fn() -> bool.
_BISECT = """
def test_fn():
    # True when compiled agrees with eager (same() against float64); a crash fails
    torch._dynamo.reset()
    eager, fp64 = run(), run(dtype=torch.float64)
    try:
        compiled = run(compile_=True)
    except Exception:
        return False
    return torch._dynamo.utils.same(_judged(eager), _judged(compiled), _judged(fp64), tol={tol!r})


if __name__ == "__main__":
    from torch._inductor.compiler_bisector import CompilerBisector

    print(CompilerBisector.do_bisect(test_fn))
"""


def plain_script(
    program: Program, options: CheckOptions | None = None, inputs: bool = False
) -> str:
    """The short plain repro: the program, then eager vs compiled vs float64, printed.
    ``inputs``: the finding is in an input written in place, so the arguments after the calls
    are printed and judged with the outputs."""
    options = options or CheckOptions()
    what = f"{compiler_name(options.backend)} differs from eager"
    head = "\n".join(_head(program, options, what, inputs))
    return head + "\n" + _PLAIN.lstrip("\n").format(tol=options.tol)


def bisector_script(program: Program, options: CheckOptions | None = None) -> str:
    """The program as ``test_fn() -> bool`` for ``CompilerBisector.do_bisect``."""
    options = options or CheckOptions()
    head = "\n".join(_head(program, options, "CompilerBisector over this program"))
    return head + "\n" + _BISECT.lstrip("\n").format(tol=options.tol)
