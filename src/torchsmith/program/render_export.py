"""The standalone script's export path: what ``render_script`` puts in place of
``torch.compile`` when a program is checked through ``torch.export`` and AOTInductor.

The helper is plain text the script defines (the script imports nothing from torchsmith). It
follows ``oracle/export_path.py``: the tensor arguments are the exported inputs (other
arguments bound per call), dims whose sizes differ between the calls are ``Dim.DYNAMIC``, and
the backend names how far the path goes (``export``, ``export_decomp``, ``aoti_compile``,
``aoti``). It differs in one way: every call with other non-tensor arguments, ranks or dtypes
than the first call's is exported on its own, without a cache.
"""

from __future__ import annotations

#: The backends the helper serves (``oracle/export_path.BACKENDS``; program/ does not import
#: the oracle).
EXPORT_BACKENDS = ("export", "export_decomp", "aoti_compile", "aoti")

COMPILE_LINE = "fn = torch.compile(target, **COMPILE_KWARGS)"
EXPORT_LINE = 'fn = _exported(target, calls, kwargs, COMPILE_KWARGS["backend"])'

HELPER = """
# ---- the export path (torch.export -> run_decompositions -> AOTInductor) ---------------------
def _exported(target, calls, kwargs, backend):
    import os
    import tempfile

    def tensors_of(args):
        return [a for a in args if isinstance(a, torch.Tensor)]

    def key(args):
        return [(a.dim(), a.dtype) if isinstance(a, torch.Tensor) else repr(a) for a in args]

    built = {}

    def build(args):
        fixed = list(args)
        slots = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]

        class Target(torch.nn.Module):
            def __init__(self):
                super().__init__()
                if isinstance(target, torch.nn.Module):
                    self.inner = target

            def forward(self, *tensors):
                full = list(fixed)
                for i, t in zip(slots, tensors):
                    full[i] = t
                return target(*full, **kwargs)

        group = [tensors_of(c) for c in calls if key(c) == key(args)]
        dims = []
        for i, t in enumerate(tensors_of(args)):
            d = {j for other in group for j in range(t.dim()) if other[i].shape[j] != t.shape[j]}
            dims.append({j: torch.export.Dim.DYNAMIC for j in sorted(d)} or None)
        shapes = (tuple(dims),) if any(dims) else None
        example = max(group, key=lambda ts: sum(t.numel() for t in ts))  # the largest call
        ep = torch.export.export(
            Target().eval(), tuple(example), dynamic_shapes=shapes, strict=False
        )
        if backend == "export":
            return ep.module()
        ep = ep.run_decompositions()
        if backend == "export_decomp":
            return ep.module()
        path = torch._inductor.aoti_compile_and_package(
            ep, package_path=os.path.join(tempfile.mkdtemp(), "model.pt2")
        )
        return ep.module() if backend == "aoti_compile" else torch._inductor.aoti_load_package(path)

    def call(*args, **_):
        k = repr(key(args))
        if k not in built:
            built[k] = build(args)
        return built[k](*tensors_of(args))

    return call
"""


#: What a report calls each export backend's compiler, in place of ``torch.compile``.
PATH_NAMES = {
    "export": "torch.export",
    "export_decomp": "torch.export + run_decompositions",
    "aoti_compile": "AOTInductor (aoti_compile_and_package)",
    "aoti": "torch.export + AOTInductor",
}


#: What each export backend runs, as a report's one-line description says it.
PATH_CALLS = {
    "export": "torch.export.export(m, args).module()",
    "export_decomp": "torch.export.export(m, args).run_decompositions().module()",
    "aoti_compile": "aoti_compile_and_package(torch.export.export(m, args).run_decompositions())",
    "aoti": "aoti_load_package(aoti_compile_and_package(torch.export.export(m, args)))",
}


def compiler_name(backend: str | None) -> str:
    """``torch.compile``, or the export path's name for an export backend."""
    return PATH_NAMES.get(backend or "", "torch.compile")


def export_runner(runner: str, backend: str) -> str:
    """``runner`` (the script's harness text) with ``torch.compile`` replaced by the export
    helper when ``backend`` is an export backend; unchanged otherwise."""
    if backend not in EXPORT_BACKENDS or COMPILE_LINE not in runner:
        return runner
    return HELPER.strip("\n") + "\n\n" + runner.replace(COMPILE_LINE, EXPORT_LINE)
