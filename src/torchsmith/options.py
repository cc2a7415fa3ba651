"""Check options: one dataclass shared by the CLI, the library call and the worker protocol."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable
from typing import Any

from torchsmith.jsonable import Jsonable

DTYPES = ("float32", "float16", "bfloat16", "float64")
DEVICES = ("cpu", "cuda")

#: ``--config`` prefixes and the config modules they address.
CONFIG_MODULES = {
    "inductor": "torch._inductor.config",
    "dynamo": "torch._dynamo.config",
    "functorch": "torch._functorch.config",
}

#: PyTorch's default tolerance for ``same()`` (its own default argument).
DEFAULT_TOL = 1e-4


#: The ``compile_kwargs`` keys a program may declare that map onto check options of one name.
DECLARED_KWARGS = ("backend", "mode", "fullgraph", "dynamic")


@dataclasses.dataclass
class CheckOptions(Jsonable):
    """How to compile and judge a program. Every field is JSON-safe."""

    backend: str = "inductor"
    mode: str | None = None
    fullgraph: bool = False
    dynamic: bool | None = None
    device: str = "cpu"
    dtype: str | None = None  # cast model and float inputs before running
    grad: bool = False  # also compare gradients of inputs and parameters
    config: dict[str, Any] = dataclasses.field(default_factory=dict)  # "inductor.x.y" -> value
    timeout: float = 300.0  # wall-clock seconds for one worker job
    memory_mb: int = 8192  # resident-memory cap for the worker
    seed: int = 0
    tol: float = DEFAULT_TOL
    localize: bool = True
    bisect: bool = False
    probe: bool = True  # re-judge candidate mismatches with the sensitivity probe
    exact: bool = False  # judge outputs bit for bit against eager (--mode lite's promise)
    inductor_options: dict[str, Any] = dataclasses.field(default_factory=dict)  # compile(options=)
    only: str | None = None  # --only NAME: compile just this submodule, method or function

    def __post_init__(self) -> None:
        if self.dtype is not None and self.dtype not in DTYPES:
            raise ValueError(f"--dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")
        if self.device not in DEVICES and not self.device.startswith("cuda:"):
            raise ValueError(f"--device must be cpu or cuda, not {self.device!r}")
        for key in self.config:
            check_config_key(key)

    def replace(self, **changes: Any) -> CheckOptions:
        return dataclasses.replace(self, **changes)

    def overridden_by(self, given: CheckOptions, fields: Iterable[str]) -> CheckOptions:
        """These options (a finding's, a campaign's) with ``fields`` taken from ``given`` (the
        ones a user gave on the command line); every other field stays as it is."""
        return self.replace(**{f: getattr(given, f) for f in fields if hasattr(given, f)})

    def with_declared(
        self,
        compile_kwargs: dict[str, Any],
        config: dict[str, Any],
        check: dict[str, Any] | None = None,
    ) -> CheckOptions:
        """These options with what a program declares it is compiled with (``compile_kwargs``:
        ``backend``, ``mode``, ``fullgraph``, ``dynamic``, ``options``; ``config``: ``--config``
        entries) and checked with (``check``: ``grad``). A declared setting applies where these
        options keep their default; the user's ``--config`` entries win over the program's."""
        defaults = CheckOptions()
        changes: dict[str, Any] = {}
        if (check or {}).get("grad") is True and not self.grad:
            changes["grad"] = True
        for key in DECLARED_KWARGS:
            if key in compile_kwargs and getattr(self, key) == getattr(defaults, key):
                changes[key] = compile_kwargs[key]
        if isinstance(compile_kwargs.get("options"), dict) and not self.inductor_options:
            changes["inductor_options"] = dict(compile_kwargs["options"])
        valid = {}
        for key, value in config.items():
            try:
                check_config_key(key)
            except ValueError:
                continue
            valid[key] = value
        if valid:
            changes["config"] = {**valid, **self.config}
        return self.replace(**changes) if changes else self

    def without_declared(
        self,
        compile_kwargs: dict[str, Any],
        config: dict[str, Any],
        check: dict[str, Any] | None = None,
    ) -> CheckOptions:
        """These options (a finding's, which hold what its program declared) with every
        setting the program declares, at the declared value, back at its default: what a
        reducer checks candidates with, so that each candidate's own declarations decide
        (a candidate that drops ``compile_kwargs = {"backend": "aoti"}`` is then checked
        under ``torch.compile`` and refused, instead of kept and unable to fail alone)."""
        defaults = CheckOptions()
        changes: dict[str, Any] = {}
        if (check or {}).get("grad") is True and self.grad:
            changes["grad"] = False
        for key in DECLARED_KWARGS:
            if key in compile_kwargs and getattr(self, key) == compile_kwargs[key]:
                changes[key] = getattr(defaults, key)
        if isinstance(compile_kwargs.get("options"), dict):
            if self.inductor_options == compile_kwargs["options"]:
                changes["inductor_options"] = {}
        kept = {k: v for k, v in self.config.items() if not (k in config and config[k] == v)}
        if kept != self.config:
            changes["config"] = kept
        return self.replace(**changes) if changes else self

    def compile_kwargs(self, backend: str | None = None) -> dict[str, Any]:
        """Keyword arguments for ``torch.compile``."""
        kw: dict[str, Any] = {"backend": backend or self.backend, "fullgraph": self.fullgraph}
        if self.mode is not None and (backend or self.backend) == "inductor":
            kw["mode"] = self.mode
        if self.dynamic is not None:
            kw["dynamic"] = self.dynamic
        if self.inductor_options and (backend or self.backend) == "inductor":
            kw["options"] = dict(self.inductor_options)
        return kw


def check_config_key(key: str) -> None:
    prefix = key.split(".", 1)[0]
    if prefix not in CONFIG_MODULES or "." not in key:
        raise ValueError(
            f"--config key {key!r} must start with one of {', '.join(CONFIG_MODULES)} and name an"
            " entry, e.g. inductor.cpp.inject_relu_bug_TESTING_ONLY"
        )


def parse_key_value(item: str, what: str = "--config") -> tuple[str, Any]:
    """``"key=3"`` -> ``("key", 3)``: the one KEY=VALUE parser (``--config``, ``--gen-option``).

    Values are Python literals when they parse as one (``True``, ``3``, ``"x"``, ``(1, 2)``) and
    plain strings otherwise (``accuracy``, ``relu,add``). Raises ``ValueError`` naming ``what``.
    """
    if "=" not in item:
        raise ValueError(f"{what} expects KEY=VALUE, got {item!r}")
    key, raw = item.split("=", 1)
    key = key.strip()
    if not key:
        raise ValueError(f"{what} expects KEY=VALUE, got {item!r}")
    try:
        value: Any = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        value = raw.strip()
    return key, value


def parse_config_item(item: str) -> tuple[str, Any]:
    """``"inductor.fallback_random=True"`` -> ``("inductor.fallback_random", True)``."""
    key, value = parse_key_value(item, "--config")
    check_config_key(key)
    return key, value


def split_config(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Group ``{"inductor.a.b": v}`` into ``{"torch._inductor.config": {"a.b": v}}``."""
    out: dict[str, dict[str, Any]] = {}
    for key, value in config.items():
        prefix, rest = key.split(".", 1)
        out.setdefault(CONFIG_MODULES[prefix], {})[rest] = value
    return out


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``10m``, ``2h``, ``1d``, ``1h30m`` -> seconds."""
    import re

    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 1}
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([smhd]?)", text.strip().lower())
    if not parts or re.sub(r"[\d.\s smhd]", "", text.lower()):
        raise ValueError(f"cannot read {text!r} as a duration (try 90s, 10m, 2h, 1d)")
    return sum(float(n) * units[u] for n, u in parts)
