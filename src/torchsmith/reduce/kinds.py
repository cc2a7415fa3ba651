"""The kinds of a program's inputs, and the rule that a reduction keeps them.

A reduced program must call its target with inputs of the kinds the original used: a tensor
argument stays a tensor (its shape, dtype and layout may change), a Python float stays a float,
an int an int, and so on. Arguments and calls may be dropped, but never change kind: a
reduction that turns ``fn(x, s)`` with a tensor ``x`` into ``fn(0, s)`` tests something else
(the drift reported for ``math.cos(s) ** 0`` with the tensor replaced by ``0``).

:func:`input_kinds` runs in a worker (a ``"call"`` job: it loads the program, which executes
its code); :func:`keeps_kinds` compares in the parent.
"""

from __future__ import annotations

from typing import Any

from torchsmith.program.format import Program

FUNCTION = "torchsmith.reduce.kinds:input_kinds"

#: Per call: the kinds of its positional arguments, then ``"kw:<name>"`` entries.
Kinds = list[list[Any]]


def kind_of(value: Any) -> Any:
    """``"tensor"``, ``"float"``, ``"int"``, ``"bool"``, ``"dtype"``, ... ; lists and tuples
    as lists of kinds, dicts as ``{key: kind}``."""
    import torch

    if isinstance(value, torch.Tensor):
        return "tensor"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, torch.dtype):
        return "dtype"
    if isinstance(value, list | tuple):
        return [kind_of(v) for v in value]
    if isinstance(value, dict):
        return {str(k): kind_of(v) for k, v in value.items()}
    return type(value).__name__


def input_kinds(program: Program, options: Any, emit: Any = None) -> dict[str, Any]:
    """Worker side: load ``program`` and describe every call's arguments."""
    from torchsmith.oracle import runtime

    loaded = runtime.load(program, options.seed)
    calls = []
    for c in loaded.calls:
        kinds = [kind_of(a) for a in c.args]
        kinds += [{"kw": str(k), "kind": kind_of(v)} for k, v in sorted(c.kwargs.items())]
        calls.append(kinds)
    return {"calls": calls}


def _subsequence(small: list[Any], big: list[Any]) -> bool:
    it = iter(big)
    return all(any(_same(s, b) for b in it) for s in small)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return _subsequence(a, b)  # a tuple argument may lose elements, not change them
    return a == b


def keeps_kinds(candidate: Kinds, original: Kinds) -> bool:
    """Every call of ``candidate`` matches a distinct later call of ``original`` (in order),
    its arguments a subsequence of that call's arguments, kind for kind."""
    it = iter(original)
    return all(any(_subsequence(c, o) for o in it) for c in candidate)


def describe(kinds: Kinds) -> str:
    def one(k: Any) -> str:
        if isinstance(k, list):
            return "[" + ", ".join(one(x) for x in k) + "]"
        if isinstance(k, dict):
            if "kw" in k:
                return f"{k['kw']}={one(k['kind'])}"
            return "{" + ", ".join(f"{key}: {one(v)}" for key, v in k.items()) + "}"
        return str(k)

    return "; ".join("(" + ", ".join(one(a) for a in call) + ")" for call in kinds)
