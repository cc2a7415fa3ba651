"""``--only NAME``: compile one part of a program and run the rest eagerly.

PyTorch's ``TORCHDYNAMO_DEBUG_FUNCTION=<name>`` makes Dynamo skip every frame whose code name is
not ``<name>``, so only functions of that name are compiled (every ``forward`` at once, when the
name is ``forward``). torchsmith resolves ``NAME`` in the program instead, so one part can be
picked out, and compiles just that part in place:

* a submodule path of the model (``block1``, ``self.block1.fc``, ``layers.0``): its bound
  ``forward`` is replaced by ``torch.compile(forward)`` on the instance (parameter names and
  module hooks stay as they are; ``nn.Module.compile()`` would capture nothing for a
  ``torch.nn`` module such as ``nn.Linear``, whose ``_call_impl`` frame Dynamo skips);
* a method of the model or of a submodule (``helper``, ``block1.helper``): the instance's bound
  method is replaced by ``torch.compile(method)``;
* a function or a global ``nn.Module`` of the program (``gelu_approx``, a function program's
  ``mlp``): the program's global function is replaced by its compiled version, a global
  module gets its ``forward`` compiled as a submodule does;
* the target itself (``forward``, the class name, a function program's function): the usual
  whole-target compile.

Everything else runs eagerly, so a failure outside the named part disappears: that is the point
(narrowing a failure down to one function). A name that resolves to nothing raises
:class:`OnlyError` with the candidates, in eager runs as well, so ``check`` judges such a program
invalid instead of calling the compiled run a crash. Runs in the worker (it executes program
code); :func:`torchsmith.oracle.runtime.run_model` and the troubleshooting jobs call it.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

#: At most this many candidates are listed when a name resolves to nothing.
MAX_CANDIDATES = 12


class OnlyError(LookupError):
    """``--only NAME`` names nothing the program can compile."""


def _is_program_function(value: Any) -> bool:
    return isinstance(value, types.FunctionType) and not value.__name__.startswith("get_")


def candidates(target: Any, namespace: dict[str, Any]) -> list[str]:
    """Names ``--only`` accepts for this program: submodules, own methods, functions."""
    import torch

    out: list[str] = []
    if isinstance(target, torch.nn.Module):
        out += [name for name, _ in target.named_modules() if name]
        base = set(dir(torch.nn.Module))
        out += [
            n
            for n, v in inspect.getmembers(type(target), inspect.isfunction)
            if n not in base and not n.startswith("_")
        ]
    out += [
        n
        for n, v in namespace.items()
        if not n.startswith("_")
        and v is not target
        and (_is_program_function(v) or isinstance(v, torch.nn.Module))
        and n not in ("before_call",)
    ]
    return list(dict.fromkeys(out))


def resolve(target: Any, namespace: dict[str, Any], name: str) -> tuple[str, Any, str]:
    """``(kind, owner, attr)`` for ``name``: kind is ``target``, ``submodule``, ``method``,
    ``global_module`` or ``function``. Raises :class:`OnlyError` when nothing matches."""
    import torch

    path = name.strip().removeprefix("self.")
    if not path:
        raise OnlyError("--only needs a name")
    if isinstance(target, torch.nn.Module):
        if path in ("forward", type(target).__name__):
            return "target", target, ""
        try:
            target.get_submodule(path)
            return "submodule", target, path
        except AttributeError:
            pass
        owner_path, _, attr = path.rpartition(".")
        try:
            owner = target.get_submodule(owner_path) if owner_path else target
        except AttributeError:
            owner = None
        if owner is not None and inspect.ismethod(getattr(owner, attr, None)):
            return "method", owner, attr
    elif path == getattr(target, "__name__", None):
        return "target", target, ""
    value = namespace.get(path)
    if isinstance(value, torch.nn.Module):
        return "global_module", namespace, path
    if _is_program_function(value) and value is not target:
        return "function", namespace, path
    if value is target and value is not None:
        return "target", target, ""
    names = candidates(target, namespace)
    shown = ", ".join(names[:MAX_CANDIDATES]) + (", ..." if len(names) > MAX_CANDIDATES else "")
    raise OnlyError(
        f"--only {name!r}: not a submodule, method or function of the program"
        + (f" (candidates: {shown})" if names else "")
    )


def compile_only(
    target: Any,
    namespace: dict[str, Any],
    name: str,
    compile_kwargs: dict[str, Any] | None,
) -> Any:
    """What to call for one run: ``target`` with only ``name`` compiled (see the module doc).

    ``compile_kwargs`` None (an eager run) only checks the name. Raises :class:`OnlyError` for a name that resolves to nothing.
    """
    import torch

    kind, owner, attr = resolve(target, namespace, name)
    if compile_kwargs is None:
        return target
    if kind == "target":
        return torch.compile(target, **compile_kwargs)
    if kind in ("submodule", "global_module"):
        # its bound forward, not Module.compile(): Dynamo skips the _call_impl frame of a
        # torch.nn module (an nn.Linear compiled that way captures nothing)
        sub = owner.get_submodule(attr) if kind == "submodule" else owner[attr]
        sub.forward = torch.compile(sub.forward, **compile_kwargs)
    elif kind == "method":
        setattr(owner, attr, torch.compile(getattr(owner, attr), **compile_kwargs))
    else:
        owner[attr] = torch.compile(owner[attr], **compile_kwargs)
    return target
