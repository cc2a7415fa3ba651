"""Random programs under Inductor's own generator: what can be judged when values cannot.

The judge compiles with ``torch._inductor.config.fallback_random = True``, as PyTorch's
accuracy harness does: Inductor then calls ATen's random ops, so compiled random values equal
eager's and can be compared. That setting also switches off everything Inductor does to random
ops itself (the ``replace_random`` pass, its Philox lowering): its bugs (a default dtype
ignored, ``torch.rand`` in bfloat16 reaching 1.0) never show.

So a program that draws random numbers is checked once more with ``fallback_random = False``
(:func:`needs_native_run`), and there values are not compared: another generator gives other
numbers. What does not depend on them is: the compiled run must not raise, die or hang, and
every output (and gradient) must have eager's structure, dtype and shape (:func:`judge`).

Invariants:

* values are never compared in such a run, so it cannot report a false mismatch;
* a program that draws no random numbers is never run twice (:func:`draws_random` reads its
  source), and neither is one whose user set ``fallback_random`` either way.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from torchsmith.verdict import Verdict

if TYPE_CHECKING:
    from torchsmith.oracle.compare import Judgement

#: The ``--config`` key this module turns off.
KEY = "inductor.fallback_random"

#: Names of the calls that draw random numbers (functions, methods, modules built in the
#: compiled code): ``torch.rand``, ``x.bernoulli_``, ``F.dropout``, ``torch.randint_like``.
_RANDOM_NAME = re.compile(
    r"(rand|randn|randint|randperm|rand_like|randn_like|randint_like|bernoulli_?|normal_?"
    r"|uniform_|exponential_|geometric_|log_normal_|cauchy_|random_|multinomial|poisson"
    r"|native_dropout|\w*dropout\w*|\w*Dropout\w*|rrelu_?|RReLU|gumbel_softmax)"
)

#: Functions that run eagerly around the compiled call: inputs, parameters, call hooks.
_EAGER_ONLY = frozenset(
    {"get_inputs", "get_calls", "get_kwargs", "get_init_inputs", "before_call", "__init__"}
)


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _draws(call: ast.Call) -> bool:
    """A random call, unless it says ``training=False`` (dropout in eval: no randomness)."""
    if not _RANDOM_NAME.fullmatch(_callee(call)):
        return False
    return not any(
        k.arg == "training" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords
    )


def draws_random(source: str) -> bool:
    """Whether the functions that may be compiled call a random op: every function but the ones
    that build inputs and parameters (``torch.randn`` there is data, drawn eagerly); module-level
    statements are left out too. By name, so a false positive costs one more run."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _RANDOM_NAME.search(source) is not None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            if getattr(node, "name", "") in _EAGER_ONLY:
                continue
            body = node.body if isinstance(node.body, list) else [node.body]
            for stmt in body:
                if any(isinstance(c, ast.Call) and _draws(c) for c in ast.walk(stmt)):
                    return True
    return False


def needs_native_run(source: str, config: dict[str, Any]) -> bool:
    """Whether a passing program is checked again under Inductor's own generator: it draws
    random numbers and its user left ``fallback_random`` to the judge."""
    return KEY not in config and draws_random(source)


def values_comparable(source: str, config: dict[str, Any]) -> bool:
    """False when compiled random values come from another generator than eager's."""
    return config.get(KEY, True) is not False or not draws_random(source)


def _describe(x: Any) -> str:
    import torch

    if isinstance(x, torch.Tensor):
        return f"{x.dtype} {list(x.shape)}"
    return type(x).__name__


def _meta(x: Any) -> tuple[Any, ...]:
    import torch

    if isinstance(x, torch.Tensor):
        return ("tensor", x.dtype, tuple(x.shape))
    return (type(x).__name__,)


def judge(parts: dict[str, tuple[Any, Any]]) -> Judgement:
    """Structure, dtype and shape of every leaf of each part (``out``, ``grad``, ...:
    ``(eager, compiled)``), never values. (Torch is imported here, not at the top: the
    parent process asks :func:`needs_native_run` without loading torch.)"""
    from torchsmith.oracle.compare import Judgement
    from torchsmith.oracle.outputs import flatten

    for prefix, (ref, res) in parts.items():
        a, b = flatten(ref, prefix), flatten(res, prefix)
        if [path for path, _ in a] != [path for path, _ in b]:
            why = f"{prefix}: eager has {len(a)} leaves, compiled {len(b)}"
            return Judgement(Verdict.META_MISMATCH, why, {"output": prefix, **_note()})
        for (path, x), (_, y) in zip(a, b, strict=True):
            if _meta(x) != _meta(y):
                why = f"{path}: eager gives {_describe(x)}, compiled {_describe(y)}"
                evidence = {"output": path, "eager": _describe(x), "compiled": _describe(y)}
                return Judgement(Verdict.META_MISMATCH, why, {**evidence, **_note()})
    return Judgement(Verdict.PASS, "", _note())


def _note() -> dict[str, Any]:
    return {"values": "not compared: fallback_random=False, Inductor's own random numbers"}
