"""``ast.parse`` made safe to call from several threads at once.

CPython before 3.12.x keeps the recursion depth of its AST constructor in interpreter-wide
state (python/cpython#106905): two threads that parse at the same time can corrupt it and
one of them fails with ``SystemError: AST constructor recursion depth mismatch``. A campaign
generates, signs and reduces programs in several threads, so a race there loses a program
(recorded as a generator error). :func:`install` wraps ``ast.parse`` (which ``ast.literal_eval``
uses too) in one process-wide lock; parsing is quick, the lock costs nothing measurable.
Installed when :mod:`torchsmith` is imported; idempotent.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.RLock()


def install() -> None:
    if getattr(ast.parse, "_torchsmith_locked", False):
        return
    original = ast.parse

    def parse(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return original(*args, **kwargs)

    parse._torchsmith_locked = True  # type: ignore[attr-defined]
    parse.__doc__ = original.__doc__
    ast.parse = parse  # type: ignore[assignment]
