"""One g++ run per compiled graph: a worker's Inductor builds a graph's C++ kernels together.

On CPU, Inductor's Python wrapper defines each kernel with ``async_compile.cpp_pybinding(argtypes,
source)`` and then calls ``async_compile.wait(globals())``. With one compile thread (a worker's
setting) every ``cpp_pybinding`` is its own g++ run: the precompiled header is loaded again
(~0.3 s of a small kernel's ~0.55 s on this project's machine, with gold) and the kernel is
linked into its own ``.so``. Inductor's C++ backend puts the loops between two extern calls
(``mm``, ``conv``, fallbacks) in one kernel, so a graph has as many kernels as such segments,
and each pays that fixed cost.

:func:`install` patches the worker's ``AsyncCompile`` so that the kernels of one wrapper module
are built as one translation unit, with Inductor's own machinery (``CppPythonBindingsCodeCache``:
the same compiler flags, the same precompiled header, the same file cache and lock):

* ``cpp_pybinding`` records the kernel and returns a future; calling it before ``wait``
  builds the batch at once;
* ``wait(scope)`` builds the batch and puts each kernel's function in the scope.

The translation unit holds each kernel's source byte for byte, in a namespace of its own
(``tsk_b<i>``), followed by Inductor's own Python binding for it (the text the installed torch's
``load_pybinding_async`` appends, captured: 2.6 and 2.13 word it differently); the only edit is
the name of the kernel's ``extern "C"`` function (``kernel`` -> ``kernel_b<i>``), which must be
unique in one library. The kernels' ``#include`` lines and the binding's leading preprocessor
lines go once at the top (all headers are guarded), and the library is imported once per kernel
under that kernel's module name, as Inductor imports a kernel's own library.

Invariants:

* the generated kernel source, the flags and the precompiled header are Inductor's, unchanged;
* a kernel the batch cannot hold exactly (a second ``extern "C"`` function, a ``#define`` or
  ``#if``, an ``#include`` after code, a name the binding defines as a macro) is built alone by
  Inductor's own path;
* when the batch does not compile, every kernel is built alone by Inductor's own path, in the
  wrapper's order, so a kernel that does not compile fails exactly as it does unbatched (the
  same error, the same message);
* a batch of one kernel is Inductor's own path.

``bench/compile_settings.py`` (setting ``batch``) checks on the known-failing corpus that every
program still fails the same way, the project's rule for any cheaper compile; ``notes/
campaign.md`` has the measurement. ``TORCHSMITH_KERNEL_BATCH=0`` in a worker's environment
turns it off.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from typing import Any

#: Environment variable: ``0`` keeps Inductor's one g++ run per kernel.
BATCH_VAR = "TORCHSMITH_KERNEL_BATCH"

_DECL = re.compile(r'(extern\s+"C"\s+(?:[\w()]+\s+)*?void\s+(?:\w+\s+)*?)kernel(\s*\()')
_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)")

#: What this process has batched, for tests and benches: kernels built in batches, batches,
#: kernels built alone because the batch could not hold them, batches that failed to compile.
stats = {"batched_kernels": 0, "batches": 0, "alone": 0, "failed_batches": 0}


def enabled(env: dict[str, str] | None = None) -> bool:
    """Whether ``env`` (default: this process's) asks for batching (the default)."""
    value = (env if env is not None else os.environ).get(BATCH_VAR, "1").strip().lower()
    return value not in ("0", "false", "no", "off")


def _leading(text: str) -> tuple[list[str], str]:
    """``text`` split before its first line of code: the preprocessor lines before it
    (stripped; comments and blank lines dropped) and the rest, byte for byte."""
    lines = text.splitlines(keepends=True)
    head: list[str] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith("#"):
            head.append(stripped)
        elif stripped and not stripped.startswith("//"):
            break
        i += 1
    return head, "".join(lines[i:])


def split_source(
    source: str, reserved: frozenset[str] = frozenset()
) -> tuple[list[str], str] | None:
    """``(includes, body)`` of a kernel's source, or None when a batch cannot hold it exactly.

    ``includes`` are the leading ``#include`` lines (hoisted to the top of the batch), ``body``
    the rest, byte for byte. A batch holds only kernels with exactly one ``extern "C"``
    function, no preprocessor directive after the includes but ``#pragma``, and none of the
    ``reserved`` identifiers (the macros the binding defines, which the batch defines before
    every kernel rather than after it).
    """
    includes, body = _leading(source)
    if any(_DIRECTIVE.match(line).group(1) != "include" for line in includes):
        return None
    for line in body.splitlines():
        m = _DIRECTIVE.match(line)
        if m and m.group(1) != "pragma":
            return None
    if body.count('extern "C"') != 1 or len(_DECL.findall(body)) != 1:
        return None
    if reserved and reserved & set(re.findall(r"\b\w+\b", body)):
        return None
    return includes, body


def binding(argtypes: list[str], entry: str, cache_cls: Any) -> str:
    """Inductor's own Python binding for a kernel function named ``entry``: the text its
    ``load_pybinding_async`` appends to a kernel's source (every torch words it its own way),
    captured instead of compiled."""
    captured: list[str] = []

    def load_async(cls: Any, main_code: str, *args: Any, **kwargs: Any) -> Any:
        captured.append(main_code)
        return lambda: None

    call = cache_cls.call_entry_function.replace("kernel(", f"{entry}(", 1)
    only = type(
        "_BindingOnly",
        (cache_cls,),
        {
            "entry_function": entry,
            "call_entry_function": call,
            "load_async": classmethod(load_async),
        },
    )
    only.load_pybinding_async(list(argtypes), "")
    return captured[0]


def reserved_names(cache_cls: Any) -> frozenset[str]:
    """The macros Inductor's binding defines before its code (``likely``, ...)."""
    head, _ = _leading(binding(["float*"], "kernel", cache_cls))
    return frozenset(
        line.split()[1].split("(")[0]
        for line in head
        if _DIRECTIVE.match(line).group(1) == "define"
    )


def batch_source(kernels: list[tuple[list[str], list[str], str]], cache_cls: Any) -> str:
    """One translation unit for ``kernels`` (``(argtypes, includes, body)``, from
    :func:`split_source`): the kernels' includes and the binding's leading preprocessor lines
    once at the top, then each kernel in namespace ``tsk_b<i>``, its ``extern "C"`` function
    renamed ``kernel_b<i>``, followed by Inductor's binding for it (``PyInit_kernel_b<i>``)."""
    top: list[str] = []
    heads: list[list[str]] = []
    parts: list[str] = []
    for _, includes, _ in kernels:
        top.extend(line for line in includes if line not in top)
    for i, (argtypes, _, body) in enumerate(kernels):
        name = f"kernel_b{i}"
        renamed = _DECL.sub(lambda m, n=name: f"{m.group(1)}{n}{m.group(2)}", body, count=1)
        head, rest = _leading(binding(argtypes, name, cache_cls))
        if head not in heads:
            heads.append(head)
        parts.append(f"namespace tsk_b{i} {{\n{renamed}\n{rest}\n}}  // namespace tsk_b{i}\n")
    lines = top + [line for head in heads for line in head]
    return "\n".join(lines) + "\n\n" + "\n".join(parts)


class _Batch:
    """The kernels one wrapper module defined, built on first need."""

    def __init__(self) -> None:
        self.kernels: list[tuple[list[str], str, list[str], str]] = []  # argtypes, src, incs, body
        self.functions: list[Any] | None = None
        self.lock = threading.Lock()

    def add(self, argtypes: list[str], source: str, includes: list[str], body: str) -> int:
        self.kernels.append((list(argtypes), source, includes, body))
        return len(self.kernels) - 1

    def function(self, index: int) -> Any:
        with self.lock:
            if self.functions is None:
                self.functions = self._build()
        return self.functions[index]

    def _build(self) -> list[Any]:
        from torch._inductor.codecache import CppPythonBindingsCodeCache as Cache

        alone = [lambda a=a, s=s: Cache.load_pybinding(a, s) for a, s, _, _ in self.kernels]
        if len(self.kernels) == 1:
            stats["alone"] += 1
            return [alone[0]()]
        source = batch_source([(a, incs, body) for a, _, incs, body in self.kernels], Cache)
        try:
            path, key = _BatchLibrary.load(source)
            functions = [_import_kernel(path, key, f"kernel_b{i}") for i in range(len(alone))]
        except Exception:
            # Inductor's own path, kernel by kernel: a kernel that does not compile raises here
            # exactly as it does unbatched.
            stats["failed_batches"] += 1
            stats["alone"] += len(alone)
            return [build() for build in alone]
        stats["batches"] += 1
        stats["batched_kernels"] += len(functions)
        return functions


def _import_kernel(path: str, key: str, entry: str) -> Any:
    """The kernel function ``entry`` of the batch library, imported as Inductor imports a
    kernel's library (its own module name, ``PyInit_<entry>``)."""
    from torch._inductor.codecache import CppPythonBindingsCodeCache

    loader = type("_KernelBinding", (CppPythonBindingsCodeCache,), {"entry_function": entry})
    module = loader._load_library_inner(path, key)
    return getattr(module, entry)


class _BatchLibrary:
    """Inductor's ``CppPythonBindingsCodeCache`` for a whole batch: its flags, precompiled
    header, file cache and lock; the library is imported per kernel by :func:`_import_kernel`."""

    _cls: Any = None

    @classmethod
    def load(cls, source: str) -> tuple[str, str]:
        if cls._cls is None:
            from torch._inductor.codecache import CppPythonBindingsCodeCache

            def _load_library(klass: Any, path: str, key: str) -> Any:
                return (path, key)

            cls._cls = type(
                "_TorchsmithBatchCache",
                (CppPythonBindingsCodeCache,),
                {"cache": {}, "_load_library": classmethod(_load_library)},
            )
        return cls._cls.load_async(source, "cpu")()


class _Future:
    """What ``cpp_pybinding`` returns for a batched kernel: ``wait`` resolves it, and calling
    it before then builds the batch and calls the kernel."""

    def __init__(self, batch: _Batch, index: int) -> None:
        self.batch, self.index = batch, index

    def result(self, timeout: float | None = None) -> Any:
        return self.batch.function(self.index)

    def __call__(self, *args: Any) -> Any:
        return self.result()(*args)


def install() -> bool:
    """Patch this process's Inductor to build each wrapper module's C++ kernels in one g++ run.

    Returns False, changing nothing, when it is turned off (:data:`BATCH_VAR`) or when this
    torch lacks the hooks. Idempotent. Once installed, :data:`BATCH_VAR` is still read per
    kernel, and a kernel is built alone while Inductor compiles in a pool of its own
    (``compile_threads`` > 1: kernels then build in parallel).
    """
    if not enabled():
        return False
    try:  # an optimization must never stop a worker from starting: any surprise is "no"
        from torch._inductor import async_compile as ac
        from torch._inductor.codecache import CppPythonBindingsCodeCache
    except Exception:
        return False
    cls = getattr(ac, "AsyncCompile", None)
    if installed():
        return True
    needed = ("call_entry_function", "load_pybinding_async", "load_async", "_load_library_inner")
    if not all(hasattr(CppPythonBindingsCodeCache, n) for n in needed):
        return False
    if not all(hasattr(cls, n) for n in ("cpp_pybinding", "wait")):
        return False
    if not hasattr(ac, "get_compile_threads"):
        return False
    try:  # this torch's binding, as its own load_pybinding_async words it
        reserved = reserved_names(CppPythonBindingsCodeCache)
    except Exception:
        return False
    original_bind, original_wait = cls.cpp_pybinding, cls.wait

    def cpp_pybinding(self: Any, argtypes: list[str], source_code: str) -> Any:
        on = enabled() and ac.get_compile_threads() <= 1
        parts = split_source(source_code, reserved) if on else None
        if parts is None:
            stats["alone"] += 1
            return original_bind(self, argtypes, source_code)
        batch = self.__dict__.get("_torchsmith_batch")
        if batch is None or batch.functions is not None:
            batch = self.__dict__["_torchsmith_batch"] = _Batch()
        return _Future(batch, batch.add(argtypes, source_code, *parts))

    def wait(self: Any, scope: dict[str, Any]) -> None:
        for name, value in list(scope.items()):
            if isinstance(value, _Future):
                scope[name] = value.result()
        self.__dict__.pop("_torchsmith_batch", None)
        return original_wait(self, scope)

    cls.cpp_pybinding, cls.wait = cpp_pybinding, wait
    cls._torchsmith_batching = True
    return True


def installed() -> bool:
    """Whether :func:`install` patched this process's Inductor."""
    ac = sys.modules.get("torch._inductor.async_compile")
    return bool(ac and getattr(ac.AsyncCompile, "_torchsmith_batching", False))
