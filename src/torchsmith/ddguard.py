"""Data-dependent guard errors (DDEs): whose fault each is, and the site that keys it.

A size or value that comes from data (``nonzero``, ``.item()``, a boolean mask) is an
*unbacked* symbol: the compiler knows no value for it, so any branch on it (``u0 == 0``, a
negative-index check, a size hint) fails with ``GuardOnDataDependentSymNode`` / Dynamo's
``UserError: Could not guard on data-dependent expression ...``. Two cases, told apart by the
``Caused by:`` line PyTorch appends (``torch.fx.experimental.symbolic_shapes``):

``user``       ``Caused by: <source line>  # <program file>:<line> in <fn>`` and nothing after:
               the program's own Python branched on the value (``if n > 2``, ``int(n)``). The
               documented answer is the user's ``torch._check``: a program fault, never a
               compiler bug (export's and torch.compile's position alike).
``framework``  a frame of torch's op code in parentheses (``... (_refs/__init__.py:911 in
               logsumexp)``, or ``Caused by: (_inductor/ir.py:3639 in handle_negative_index)``):
               an op's reference, a decomposition or an Inductor lowering guarded where eager
               never needed to (:data:`TORCH_CODE`). Maintainers fix these one by one to make the op "unbacked-friendly"
               (e.g. pytorch#162216 for softmax, #155267 for linear and layer_norm), so they are
               compiler bugs of a lesser kind: symptom ``data-dependent``.

A frame of Dynamo or export evaluating the program's own Python (``_dynamo/variables/tensor.py
in evaluate_expr`` for an ``if``; ``_export/non_strict_utils.py in __torch_function__`` for a
tensor's ``bool``), or the program's file in parentheses (non-strict export writes
``Caused by: (prog.py:6 in fn)``), is the user's. A DDE whose message names no site at all is
counted as the user's (conservative: no false
alarm). The framework site, without line numbers, is the cause key (:func:`site`): one DDE
in one lowering is one cause, whatever the expression (``Eq(u0, 0)``, ``Eq(u3, 0)``).

Pure text: no torch import; the judge (``oracle/jobs.py``, ``oracle/export_path.py``) and the
signature (``dedup.py``) both call it.
"""

from __future__ import annotations

import dataclasses
import re
import traceback

#: Exception type names of a data-dependent guard (anywhere in the chain).
TYPES = {"GuardOnDataDependentSymNode", "DataDependentOutputException"}
#: Message text of one (Dynamo re-raises the guard as a ``UserError`` with the same text).
TEXT = (
    "Could not guard on data-dependent expression",
    "Could not extract specialized integer from data-dependent expression",
)
_CAUSED = re.compile(r"^Caused by:(?P<rest>.*)$", re.M)
#: Where torch's op code lives (paths as the Caused-by line writes them, relative to torch/).
TORCH_CODE = (
    "_refs/",
    "_decomp/",
    "_prims/",
    "_prims_common/",
    "_meta_registrations.py",
    "_subclasses/",
    "_inductor/",
    "_functorch/",
    "_higher_order_ops/",
    "_library/",
    "fx/",
    "nn/",
    "_ops.py",
    "_tensor.py",
    "functional.py",
    "_numpy/",
    "masked/",
    "sparse/",
    "special/",
    "linalg/",
    "fft/",
    "distributions/",
    "utils/",
    "ao/",
)
#: ``(path/file.py:123 in fn)`` at the end of the Caused-by line: the frame that guarded.
_FRAME = re.compile(r"\((?P<file>[\w./-]+\.py):\d+ in (?P<fn>[\w<>.]+)\)\s*$")


@dataclasses.dataclass(frozen=True)
class DDE:
    """One data-dependent guard error: ``owner`` is ``"user"`` or ``"framework"``; ``site`` the
    framework frame (``_refs/__init__.py in logsumexp``) or the program's line."""

    owner: str
    site: str
    expression: str

    @property
    def is_users(self) -> bool:
        return self.owner == "user"


def _expression(text: str) -> str:
    m = re.search(r"data-dependent expression (.+?)(?: \(unhinted|\.\s|$)", text, re.M)
    return m.group(1).strip() if m else ""


def parse(message: str) -> DDE | None:
    """The DDE a message reports (None when it reports none)."""
    if not any(t in message for t in TEXT):
        return None
    expr = _expression(message)
    m = _CAUSED.search(message)
    if m is None:
        return DDE("user", "", expr)
    rest = m.group("rest").strip()
    frame = _FRAME.search(rest)
    code = rest.split("#", 1)[0].strip() if "#" in rest or frame is None else ""
    if frame is None or not frame.group("file").startswith(TORCH_CODE):
        return DDE(
            "user", code[:200] or (frame.group(0).strip().strip("()") if frame else ""), expr
        )
    return DDE("framework", f"{frame.group('file')} in {frame.group('fn')}", expr)


#: Exception types that say the backend was compiling (Inductor's lowering and passes), not
#: tracing the program's own code.
BACKEND_TYPES = {"InductorError", "LoweringException", "BackendCompilerFailed"}
#: Torch's generic dispatch machinery: never the site of a guard, only on the way to it.
MACHINERY = (
    "_subclasses/",
    "fx/experimental/proxy_tensor.py",
    "_ops.py",
    "utils/_stats.py",
    "_compile.py",
    "_dynamo/eval_frame.py",
    "fx/experimental/symbolic_shapes.py",
    "fx/experimental/sym_node.py",
    "__init__.py",
)


def torch_site(exc: BaseException) -> str:
    """The innermost frame of torch's own code in ``exc``'s traceback, past the dispatch
    machinery (``_inductor/fx_passes/post_grad.py in body_fn``); "" when there is none."""
    site = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        path = frame.filename.replace("\\", "/")
        if "/torch/" not in path:
            continue
        rel = path.rsplit("/torch/", 1)[1]
        if not rel.startswith(MACHINERY):
            site = f"{rel} in {frame.name}"
    return site


def chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes and contexts, outermost first (at most 16; no cycle)."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in out and len(out) < 16:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def classify(exc: BaseException) -> DDE | None:
    """The DDE in ``exc``'s chain (its causes and contexts), or None. A guard that names no
    site is the user's, unless the backend was compiling when it was raised (Inductor's
    lowering or passes run no user code): then it is torch's, at its innermost torch frame.
    A value read from data (``DataDependentOutputException``: ``.item()``, ``.tolist()``) with
    no guard text is the user's while tracing, and a plain crash (None) inside the backend."""
    seen = chain(exc)
    in_backend = any(
        type(e).__name__ in BACKEND_TYPES or str(e).startswith("LoweringException") for e in seen
    )
    for e in seen:
        text = str(e)
        guard = any(t in text for t in TEXT)
        if not guard and type(e).__name__ not in TYPES:
            continue
        found = parse(text) if guard else None
        if found is not None and (found.site or not in_backend):
            return found
        if not in_backend:
            return DDE("user", "", "")
        if not guard:
            return None  # torch's own code read a value from data: a crash like any other
        inner = seen[-1]
        return DDE(
            "framework", torch_site(inner) or "the backend", found.expression if found else ""
        )
    return None


def site(message: str) -> str | None:
    """``data-dependent guard in <framework site>`` for a framework DDE's message (the cause
    key ``dedup`` uses), else None."""
    found = parse(message)
    if found is None or found.is_users:
        return None
    return f"data-dependent guard in {found.site}"
