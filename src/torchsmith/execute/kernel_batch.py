"""One g++ run per compiled graph: a worker's Inductor builds a graph's C++ kernels together.

On CPU, Inductor's Python wrapper defines each kernel with ``async_compile.cpp_pybinding(argtypes,
source)`` and then calls ``async_compile.wait(globals())``. With one compile thread (a worker's
setting) every ``cpp_pybinding`` is its own g++ run: the precompiled header is loaded again
(~0.3 s of a small kernel's ~0.55 s on this project's machine, with gold) and the kernel is
linked into its own ``.so``. A packed program of 8 small graphs has some 20 kernels, so most of
its C++ time is that fixed cost paid 20 times.

:func:`install` patches the worker's ``AsyncCompile`` so that the kernels of one wrapper module
are built as one translation unit, with Inductor's own machinery (``CppPythonBindingsCodeCache``:
the same compiler flags, the same precompiled header, the same file cache and lock):

* ``cpp_pybinding`` records the kernel and returns a future; calling it before ``wait``
  builds the batch at once;
* ``wait(scope)`` builds the batch and puts each kernel's function in the scope.

The translation unit holds each kernel's source byte for byte, in a namespace of its own
(``tsk_b<i>``), followed by Inductor's own Python binding (its ``suffix_template``) for it; the
only edit is the name of the kernel's ``extern "C"`` function (``kernel`` -> ``kernel_b<i>``),
which must be unique in one library. Each kernel's ``#include`` lines are hoisted to the top
(all are guarded headers), and the library is imported once per kernel under that kernel's
module name, as Inductor imports a kernel's own library.

Invariants:

* the generated kernel source, the flags and the precompiled header are Inductor's, unchanged;
* a kernel the batch cannot hold exactly (a second ``extern "C"`` function, a ``#define`` or
  ``#if``, an ``#include`` after code) is built alone by Inductor's own path;
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


def split_source(source: str) -> tuple[list[str], str] | None:
    """``(includes, body)`` of a kernel's source, or None when a batch cannot hold it exactly.

    ``includes`` are the leading ``#include`` lines (hoisted to the top of the batch), ``body``
    the rest, byte for byte. A batch holds only kernels with exactly one ``extern "C"``
    function and no preprocessor directive after the includes but ``#pragma``.
    """
    lines = source.splitlines(keepends=True)
    includes: list[str] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        m = _DIRECTIVE.match(lines[i])
        if m and m.group(1) == "include":
            includes.append(stripped)
        elif stripped and not stripped.startswith("//"):
            break
        i += 1
    body = "".join(lines[i:])
    for line in lines[i:]:
        m = _DIRECTIVE.match(line)
        if m and m.group(1) != "pragma":
            return None
    if body.count('extern "C"') != 1 or len(_DECL.findall(body)) != 1:
        return None
    return includes, body


def _suffix_parts(suffix: str) -> tuple[list[str], str]:
    """Inductor's binding suffix split into its leading preprocessor lines and the rest."""
    lines = suffix.splitlines(keepends=True)
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


def batch_source(kernels: list[tuple[list[str], str]], cache_cls: Any) -> str:
    """One translation unit for ``kernels`` (``(argtypes, body)`` after :func:`split_source`,
    includes already collected by the caller are not repeated here): each kernel in namespace
    ``tsk_b<i>`` with its ``extern "C"`` function renamed ``kernel_b<i>`` and Inductor's binding
    ``PyInit_kernel_b<i>`` after it."""
    head: list[str] = []
    parts: list[str] = []
    for i, (argtypes, body) in enumerate(kernels):
        name = f"kernel_b{i}"
        renamed = _DECL.sub(lambda m, n=name: f"{m.group(1)}{n}{m.group(2)}", body, count=1)
        parseargs = ", ".join(
            f"parse_arg<{t.replace('const ', '')}>(args, {n})" for n, t in enumerate(argtypes)
        )
        call = cache_cls.call_entry_function.replace("kernel(", f"{name}(", 1)
        suffix = cache_cls.suffix_template.format(
            arg_len=len(argtypes),
            call_entry_func=call.format(parseargs),
            entry_func=name,
            extra_parse_arg=cache_cls.extra_parse_arg.format(array_len=-1),
        )
        pre, rest = _suffix_parts(suffix)
        head.extend(line for line in pre if line not in head)
        parts.append(f"namespace tsk_b{i} {{\n{renamed}\n{rest}\n}}  // namespace tsk_b{i}\n")
    return "\n".join(head) + "\n\n" + "\n".join(parts)


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
        includes: list[str] = []
        for _, _, incs, _ in self.kernels:
            includes.extend(line for line in incs if line not in includes)
        source = (
            "\n".join(includes)
            + "\n"
            + batch_source([(a, body) for a, _, _, body in self.kernels], Cache)
        )
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
    try:
        from torch._inductor import async_compile as ac
        from torch._inductor.codecache import CppPythonBindingsCodeCache
    except ImportError:
        return False
    cls = ac.AsyncCompile
    if installed():
        return True
    needed = ("suffix_template", "call_entry_function", "extra_parse_arg", "_load_library_inner")
    if not all(hasattr(CppPythonBindingsCodeCache, n) for n in needed):
        return False
    if not hasattr(cls, "cpp_pybinding") or not hasattr(cls, "wait"):
        return False
    original_bind, original_wait = cls.cpp_pybinding, cls.wait

    def cpp_pybinding(self: Any, argtypes: list[str], source_code: str) -> Any:
        on = enabled() and ac.get_compile_threads() <= 1
        parts = split_source(source_code) if on else None
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
