"""Render a program back out as a standalone script that runs by itself.

The script has the shape of a fuzzer report that PyTorch maintainers accept: the model and its
inputs, ``fallback_random = True``, re-seeding before every run, eager, compiled and float64
results printed, ``torch._dynamo.utils.same(eager, compiled, fp64)`` at the default tolerance, the
error figures, and one closing ``VERDICT:`` line. It exits 1 when it shows the failure, so reducers
and CI can run it as an interestingness test. Reports and reduction reuse it.
"""

from __future__ import annotations

import ast

from torchsmith.options import CONFIG_MODULES, CheckOptions
from torchsmith.oracle import native_random
from torchsmith.program.format import Program, declared_settings
from torchsmith.program.render_export import export_runner
from torchsmith.verdict import (
    IMPRECISE_MIN_EPS,
    IMPRECISE_MIN_NUMEL,
    IMPRECISE_RATIO,
    ULPS_EAGER_MAX,
    ULPS_IMPRECISE,
    ULPS_MISMATCH,
)

_RUNNER = """
# ---- torchsmith harness: eager vs compiled vs float64 ----------------------------------------
SEED = {seed}
DEVICE = {device!r}
DTYPE = {dtype}
COMPILE_KWARGS = {compile_kwargs!r}
GRAD = {grad}  # gradients judged too: of the inputs and parameters, by a seeded random weighting
VALUES = {values}  # False: Inductor's own random numbers (fallback_random=False): metadata only
TARGET = {model}
_GLOBALS = dict(globals())  # every run starts from the globals the program defined


def _storage_uses(x, uses):
    # how many input tensors use each storage (a tensor passed twice counts twice)
    for t in _leaves(x):
        if isinstance(t, torch.Tensor) and t.layout == torch.strided:
            try:
                key = (t.untyped_storage().data_ptr(), t.untyped_storage().nbytes())
            except (RuntimeError, NotImplementedError, TypeError):
                continue
            uses[key] = uses.get(key, 0) + 1
    return uses


def _cast(x, dtype, bases):
    # a fresh copy; tensors sharing storage (views, one tensor passed twice) still share it;
    # a tensor that is no view and shares nothing stays a tensor of its own (not a view)
    if isinstance(x, torch.Tensor):
        want = dtype if dtype is not None and x.is_floating_point() else x.dtype
        if GRAD and x.is_floating_point():  # its own leaf, to require grad (as torchsmith does)
            return x.detach().clone().to(device=DEVICE, dtype=want).requires_grad_(True)
        try:
            st = x.untyped_storage()
            alone = bases["uses"].get((st.data_ptr(), st.nbytes()), 0) <= 1
            if alone and not x._is_view() and x.storage_offset() == 0:
                out = torch.empty_strided(x.size(), x.stride(), dtype=want, device=DEVICE)
                return out.copy_(x)
        except (RuntimeError, NotImplementedError, TypeError):
            pass
        try:
            st = x.untyped_storage()
            key = (st.data_ptr(), st.nbytes(), want)
            if key not in bases:
                flat = torch.empty(0, dtype=x.dtype, device=x.device).set_(st)
                bases[key] = flat.to(device=DEVICE, dtype=want, copy=True)
            return bases[key].as_strided(x.size(), x.stride(), x.storage_offset())
        except (RuntimeError, NotImplementedError, TypeError):
            return x.detach().clone().to(device=DEVICE, dtype=want)
    if isinstance(x, (list, tuple)):
        return type(x)(_cast(v, dtype, bases) for v in x)
    if isinstance(x, dict):
        return {{k: _cast(v, dtype, bases) for k, v in x.items()}}
    return x


def run_test(backend, dtype=DTYPE):
    globals().update(_GLOBALS)
    torch.manual_seed(SEED)
    target = TARGET
    if isinstance(TARGET, type):
        init = get_init_inputs() if "get_init_inputs" in globals() else []
        target = TARGET(**init) if isinstance(init, dict) else TARGET(*init)
        target = target.eval()
        if dtype is not None:
            target = target.to(dtype)
        target = target.to(DEVICE)
    torch.manual_seed(SEED)
    raw_kwargs = get_kwargs() if "get_kwargs" in globals() else {{}}
    if "get_calls" in globals():
        calls = get_calls()
    else:
        calls = [get_inputs() if "get_inputs" in globals() else inputs_]
    calls = [a if isinstance(a, (list, tuple)) else [a] for a in calls]  # a bare tensor: one
    bases = {{"uses": _storage_uses([raw_kwargs, calls], {{}})}}
    kwargs = _cast(raw_kwargs, dtype, bases)
    calls = [_cast(list(args), dtype, bases) for args in calls]
    pre = [t.clone() for t in _leaves(calls) if isinstance(t, torch.Tensor)]
    fn = target
    if backend is not None:
        torch._dynamo.reset()
        fn = torch.compile(target, **COMPILE_KWARGS)
    torch.manual_seed(SEED)
    outs = []
    with torch.set_grad_enabled(GRAD):
        for i, args in enumerate(calls):
            if "before_call" in globals():
                before_call(i, target)
            outs.append(fn(*args, **kwargs))
    run_test.inputs = (pre, [t.detach() for t in _leaves(calls) if isinstance(t, torch.Tensor)])
    out = outs if len(calls) > 1 else outs[0]
    if not GRAD:
        return out
    # d(sum of outputs * seeded float64 weights): the gradients torchsmith's oracle judges
    g = torch.Generator().manual_seed(SEED + 1)
    floats = [t for t in _leaves(out) if isinstance(t, torch.Tensor) and t.is_floating_point()]
    total = sum(
        (t * torch.randn(t.shape, generator=g, dtype=torch.float64).to(t)).sum()
        for t in floats
        if t.requires_grad
    )
    if isinstance(total, torch.Tensor):
        total.backward()
    # an unused input's gradient, None or zeros (a higher-order op's backward), is zeros
    floats = [t for t in _leaves(calls) if isinstance(t, torch.Tensor) and t.is_floating_point()]
    if isinstance(target, torch.nn.Module):
        floats += [p for _, p in target.named_parameters()]
    grads = [t.grad if t.grad is not None else torch.zeros_like(t) for t in floats]
    return [_detached(out), grads]


def _detached(x):
    if isinstance(x, torch.Tensor):
        return x.detach()
    if isinstance(x, (list, tuple)):
        return type(x)(_detached(v) for v in x) if not hasattr(x, "_fields") else x
    return {{k: _detached(v) for k, v in x.items()}} if isinstance(x, dict) else x


def _same_bits(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return torch.equal(a, b)


def _written(*runs):
    # the input tensors a run wrote in place (torchsmith's oracle compares them too)
    return sorted({{i for pre, post in runs for i, (a, b) in enumerate(zip(pre, post)) if not _same_bits(a, b)}})


def _with_inputs(out, inputs, written):
    return [out, [inputs[1][i] for i in written]] if written else out


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _leaves(v)]
    if isinstance(x, dict):
        return [leaf for k in sorted(x, key=str) for leaf in _leaves(x[k])]
    return [x]


def _max_abs(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape:
        if a.numel() == 0:
            return 0.0
        if a.is_floating_point() or b.is_floating_point():
            return (a.double() - b.double()).abs().nan_to_num(posinf=0, neginf=0).max().item()
        return (a != b).sum().item()
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        vals = [_max_abs(x, y) for x, y in zip(a, b)]
        return max(vals) if vals else 0.0
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b))
    return 0.0 if a == b else float("inf")


def _judged(x):
    # Python floats are judged as float64 tensors, as torchsmith's oracle judges them (same()
    # compares bare floats with a loose isclose instead of its fp64 rule)
    if isinstance(x, float):
        return torch.tensor(x, dtype=torch.float64)
    if isinstance(x, (list, tuple)):
        return [_judged(v) for v in x]
    return {{k: _judged(v) for k, v in x.items()}} if isinstance(x, dict) else x


def _meta(eager, compiled, strides=False):
    # what differs in structure, shape or dtype (with strides: in the layout of dims > 1)
    le, lc = _leaves(eager), _leaves(compiled)
    if len(le) != len(lc):
        return f"{{len(le)}} outputs in eager, {{len(lc)}} compiled"
    for i, (e, c) in enumerate(zip(le, lc)):
        if isinstance(e, torch.Tensor) != isinstance(c, torch.Tensor):
            return f"output {{i}}: {{type(e).__name__}} in eager, {{type(c).__name__}} compiled"
        if not isinstance(e, torch.Tensor):
            continue
        if e.shape != c.shape or e.dtype != c.dtype:
            return f"output {{i}}: {{list(e.shape)}} {{e.dtype}} in eager, {{list(c.shape)}} {{c.dtype}} compiled"
        if strides and e.layout == c.layout == torch.strided and e.numel() > 1:
            lay_e = [(n, s) for n, s in zip(e.shape, e.stride()) if n > 1]
            lay_c = [(n, s) for n, s in zip(c.shape, c.stride()) if n > 1]
            if lay_e != lay_c:
                return f"output {{i}}: strides {{e.stride()}} in eager, {{c.stride()}} compiled"
    return None


def _nan_flips(eager, compiled, fp64):
    # positions where compiled is NaN and eager and fp64 are not, or the reverse
    for i, (e, c, f) in enumerate(zip(_leaves(eager), _leaves(compiled), _leaves(fp64))):
        if not (isinstance(e, torch.Tensor) and e.is_floating_point() and e.shape == c.shape):
            continue
        ne, nc, nf = e.isnan(), c.isnan(), f.isnan()
        flips = int(((ne != nc) & (ne == nf)).sum())
        if flips:
            return f"output {{i}}: compiled NaN pattern differs at {{flips}} position(s)"
    return None


def _discrete_flips(eager, compiled, fp64):
    # integer and bool outputs are judged exactly, as torchsmith's oracle judges them (same()
    # lets 1073741824 pass for 1073741825): a flip counts where the float64 run sides with eager
    for i, (e, c, f) in enumerate(zip(_leaves(eager), _leaves(compiled), _leaves(fp64))):
        if not all(isinstance(t, torch.Tensor) for t in (e, c, f)):
            continue
        if e.is_floating_point() or e.is_complex() or e.shape != c.shape or e.dtype != c.dtype:
            continue
        e, c = e.cpu(), c.cpu()
        differ = e != c
        if f.shape == e.shape:
            f = f.cpu().to(e.dtype)
            differ &= (f != c) & (f == e)
        n = int(differ.sum())
        if n:
            return f"output {{i}}: {{n}} of {{e.numel()}} {{e.dtype}} values differ, float64 sides with eager"
    return None


def _imprecise(eager, compiled, fp64):
    \"\"\"Compiled passes same() but is many times further from fp64 than eager (torchsmith's
    `imprecise`: ratio >= {ratio}, at least {min_numel} values, {min_eps} eps of the output).\"\"\"
    for e, c, f in zip(_leaves(eager), _leaves(compiled), _leaves(fp64)):
        if not (isinstance(e, torch.Tensor) and e.is_floating_point() and e.numel() >= {min_numel}):
            continue
        e64, c64, f64 = e.double(), c.double(), f.double()
        ok = torch.isfinite(e64) & torch.isfinite(c64) & torch.isfinite(f64)
        e_rmse = (e64 - f64)[ok].pow(2).mean().sqrt().item()
        c_rmse = (c64 - f64)[ok].pow(2).mean().sqrt().item()
        scale = f64[ok].pow(2).mean().sqrt().item() or 1.0
        units = c_rmse / (scale * torch.finfo(e.dtype).eps)
        if c_rmse >= {ratio} * e_rmse and units >= {min_eps} and c_rmse > 0:
            print(f"compiled RMSE vs fp64 {{c_rmse:.3g}}, eager {{e_rmse:.3g}}")
            return True
    return False


def _ulps(eager, compiled, fp64):
    \"\"\"Tiny outputs of accurate functions, in ulps (torchsmith's oracle/ulps.py): eager within
    {eager_ulps} ulps of fp64 at every judged element, compiled {imprecise_ulps} or more somewhere
    is imprecise, {mismatch_ulps} or more mismatch.\"\"\"
    for e, c, f in zip(_leaves(eager), _leaves(compiled), _leaves(fp64)):
        if not (isinstance(e, torch.Tensor) and isinstance(c, torch.Tensor) and isinstance(f, torch.Tensor)):
            continue
        if e.dtype not in (torch.float32, torch.float16, torch.bfloat16) or f.dtype != torch.float64:
            continue
        if not (e.shape == c.shape == f.shape):
            continue
        e, c, f = e.detach().cpu(), c.detach().cpu(), f.detach().cpu()
        fi = torch.finfo(e.dtype)
        a = f.abs()
        m = torch.isfinite(e) & torch.isfinite(c) & (a >= fi.tiny) & (a <= fi.max)
        if not bool(m.any()):
            continue
        _, ex = torch.frexp(a.clamp_min(fi.tiny))
        spacing = torch.ldexp(torch.full_like(f, fi.eps), ex - 1)
        eu = ((e.double() - f).abs() / spacing)[m].max().item()
        cu = ((c.double() - f).abs() / spacing)[m].max().item()
        if eu <= {eager_ulps} and cu >= {imprecise_ulps}:
            kind = "mismatch" if cu >= {mismatch_ulps} else "imprecise"
            return kind, f"compiled is {{cu:.3g}} ulps from fp64, eager at most {{eu:.3g}} ulps"
    return None


if __name__ == "__main__":
    eager = run_test(None)
    eager_in = run_test.inputs
    print("eager:", eager)
    try:
        compiled = run_test(COMPILE_KWARGS["backend"])
    except Exception:
        traceback.print_exc()
        print("VERDICT: crash (compiled raised; eager ran)")
        sys.exit(1)
    compiled_in = run_test.inputs
    print("compiled:", compiled)
    fp64 = run_test(None, torch.float64)
    fp64_in = run_test.inputs
    print("fp64:", fp64)
    written = _written(eager_in, compiled_in)
    if written:  # judged as outputs: [outputs, [the inputs written in place]]
        print("inputs written in place:", written)
        eager, compiled, fp64 = (
            _with_inputs(o, i, written)
            for o, i in ((eager, eager_in), (compiled, compiled_in), (fp64, fp64_in))
        )
    meta = _meta(eager, compiled)
    if meta:
        print("VERDICT: meta-mismatch (" + meta + ")")
        sys.exit(1)
    if not VALUES:
        print("VERDICT: pass (values not compared: Inductor's own random numbers)")
        sys.exit(0)
    nan = _nan_flips(eager, compiled, fp64)
    if nan:
        print("VERDICT: nan-mismatch (" + nan + ", where eager and fp64 agree)")
        sys.exit(1)
    flips = _discrete_flips(eager, compiled, fp64)
    if flips:
        print("VERDICT: mismatch (" + flips + ")")
        sys.exit(1)
    ok = torch._dynamo.utils.same(_judged(eager), _judged(compiled), _judged(fp64), equal_nan=True)
    print("same(eager, compiled, fp64_ref):", ok)
    print("max abs  compiled - fp64:", _max_abs(compiled, fp64))
    print("max abs  eager    - fp64:", _max_abs(eager, fp64))
    print("max abs  compiled - eager:", _max_abs(compiled, eager))
    ulps = _ulps(eager, compiled, fp64) if ok else None
    if ulps:  # same() passes at its absolute tolerance; relative to fp64, compiled is off
        print(ulps[1])
        print(f"VERDICT: {{ulps[0]}} (in ulps: eager is accurate, compiled is not)")
        sys.exit(1)
    layout = _meta(eager, compiled, strides=True) if ok else None
    if layout:  # values agree; wrong values outrank a layout difference
        print("VERDICT: meta-mismatch (" + layout + ")")
        sys.exit(1)
    if ok and _imprecise(eager, compiled, fp64):
        print("VERDICT: imprecise (passes same(), but compiled is far less precise than eager)")
        sys.exit(1)
    print("VERDICT:", "pass" if ok else "mismatch (compiled is further from fp64 than eager allows)")
    sys.exit(0 if ok else 1)
"""


def _split_future(source: str) -> tuple[list[str], str]:
    """Lift ``from __future__`` imports out of the program so they can lead the script."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    future: list[str] = []
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            future.append(ast.unparse(node))
            drop.update(range(node.lineno - 1, (node.end_lineno or node.lineno)))
    body = "".join(line for i, line in enumerate(lines) if i not in drop)
    return future, body


def config_lines(options: CheckOptions) -> list[str]:
    lines = ["torch._inductor.config.fallback_random = True"]
    for key, value in sorted(options.config.items()):
        prefix, rest = key.split(".", 1)
        lines.append(f"{CONFIG_MODULES[prefix]}.{rest} = {value!r}")
    return lines


def render_script(program: Program, options: CheckOptions | None = None, header: str = "") -> str:
    """A standalone repro script for ``program`` under ``options``; exits 1 when it fails."""
    # What the program declares it is compiled with (compile_kwargs, compile_config) applies
    # here as in `check`: a repro without `dynamic=True` would not show a dynamic-shape bug.
    options = (options or CheckOptions()).with_declared(*declared_settings(program.source))
    future, body = _split_future(program.source)
    has_inputs_global = "get_inputs" not in body and "get_calls" not in body
    parts = [*future]
    head = header.strip() or f"torchsmith repro for {program.name}"
    parts.append("\n".join("# " + line if line else "#" for line in head.splitlines()))
    parts.append("# Run: python this_file.py   (exit 0: pass, 1: the failure shows)")
    parts.append(
        "import sys\nimport traceback\n\nimport torch\nimport torch._dynamo.utils\nimport torch._inductor.config"
    )
    parts.append("\n".join(config_lines(options)))
    parts.append(f"torch.manual_seed({options.seed})")
    parts.append("# ---- the program " + "-" * 78 + "\n" + body.strip("\n"))
    if has_inputs_global:
        parts.append("inputs_ = inputs")
    kwargs = options.compile_kwargs()
    parts.append(
        _RUNNER.format(
            seed=options.seed,
            device=options.device,
            dtype=f"torch.{options.dtype}" if options.dtype else "None",
            compile_kwargs=kwargs,
            grad=bool(options.grad),
            values=native_random.values_comparable(program.source, options.config),
            model=program.model,
            ratio=IMPRECISE_RATIO,
            min_numel=IMPRECISE_MIN_NUMEL,
            min_eps=IMPRECISE_MIN_EPS,
            eager_ulps=ULPS_EAGER_MAX,
            imprecise_ulps=ULPS_IMPRECISE,
            mismatch_ulps=ULPS_MISMATCH,
        ).strip("\n")
    )
    parts[-1] = export_runner(parts[-1], options.backend)  # --backend aoti: the export path
    return "\n\n".join(parts) + "\n"
