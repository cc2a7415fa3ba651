"""Generator options and the op-name filter."""

from __future__ import annotations

import dataclasses
import fnmatch
import re

from torchsmith.generate.edges import check_values
from torchsmith.generate.graph.values import ALL_DTYPES
from torchsmith.generate.shapes import SHAPES

#: Options added after programs were first published: left out of the header's options line at
#: their default, so the programs of older options keep their bytes.
_QUIET_DEFAULT = ("values",)


@dataclasses.dataclass(frozen=True)
class GenOptions:
    """What the generator may produce. Same seed + same options give the same program."""

    max_nodes: int = 10  # ops drawn from the spec registry (glue such as guards is not counted)
    min_nodes: int = 3
    max_inputs: int = 3  # data inputs of forward (index tensors for gather & co. come on top)
    max_rank: int = 4
    max_dim_size: int = 16
    max_numel: int = 2048  # elements of a graph input
    max_outputs: int = 4
    ops: str | None = None  # filter over op names: comma-separated names, globs or regexes
    dtypes: tuple[str, ...] = ALL_DTYPES  # dtypes of graph inputs and cast targets
    edge_values: bool = False  # alias: True means values="edge" (kept for old callers)
    shapes: str = "mixed"  # boundary sizes: for some seeds (mixed), every seed, or none (random)
    # edge values on the policy's BUG side (generate/edges.py): for a share of the seeds (mixed),
    # every seed (edge) or none (plain); "wild" is the old blanket mode (UNDEFINED cases too)
    values: str = "mixed"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtypes", tuple(self.dtypes))  # a list would render differently
        bad = [d for d in self.dtypes if d not in ALL_DTYPES]
        if bad:
            raise ValueError(f"unknown dtypes {bad}; choose among {', '.join(ALL_DTYPES)}")
        if not self.dtypes:
            raise ValueError("dtypes must not be empty")
        if self.edge_values and self.values == "mixed":
            object.__setattr__(self, "values", "edge")
        check_values(self.values)
        if self.shapes not in SHAPES:
            raise ValueError(f"shapes must be one of {', '.join(SHAPES)}, not {self.shapes!r}")
        if self.min_nodes > self.max_nodes:
            object.__setattr__(self, "min_nodes", self.max_nodes)
        if self.max_nodes < 0 or self.max_inputs < 1 or self.max_rank < 1:
            raise ValueError("max_nodes >= 0, max_inputs >= 1 and max_rank >= 1 are required")

    def describe(self) -> str:
        """One line, used in the header comment of generated programs."""
        parts = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if f.name not in _QUIET_DEFAULT or getattr(self, f.name) != f.default
        ]
        return " ".join(p.replace("'", "") for p in parts)


def compile_filter(pattern: str | None):
    """A predicate over op names. Each comma-separated part is an exact name, a glob
    (``conv*``) or a regular expression (``^(add|mul)$``, matched with ``re.search``)."""
    if not pattern:
        return lambda name: True
    parts = [p.strip() for p in pattern.split(",") if p.strip()]

    def match(name: str) -> bool:
        for p in parts:
            if p == name or fnmatch.fnmatchcase(name, p):
                return True
            if any(c in p for c in "^$|+()\\{}"):
                try:
                    if re.search(p, name):
                        return True
                except re.error:
                    pass
        return False

    return match
