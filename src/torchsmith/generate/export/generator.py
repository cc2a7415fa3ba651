"""``--generator export`` (and ``family=export`` in the mix): programs checked through the
deployment path, ``torch.export`` then AOTInductor (``oracle/export_path.py``).

A mode over other families' programs, not a new kind of program: the bugs of the export path
are in what it does to ordinary programs (export's tracing and dynamic-shape constraints, the
core-ATen decompositions, AOTInductor's C++ wrapper and package), so for seed ``s`` the family
draws a base and marks the program ``compile_kwargs = {"backend": "aoti"}``, which the check
honours like any declared setting (the command line's ``--backend`` wins):

``graph``     the ``graph`` family's program for ``s`` (an ``nn.Module``, a straight line of
              ops; valid by construction);
``opinfo``    the ``opinfo`` family's program for ``s`` in mode ``args`` or ``dynamic`` (a call
              sequence whose shapes differ: exported with ``Dim.DYNAMIC`` dims);
``unbacked``  a program whose sizes come from data (``generate/export/unbacked.py``): with
              probability ``unbacked_aoti`` through the export path, else through
              ``torch.compile`` with ``capture_scalar_outputs`` and
              ``capture_dynamic_output_shape_ops`` (the note ``path=`` says which);
``chain``     a data-dependent size composed through 2-4 steps (``generate/export/chains.py``),
              on the same two paths; a third of its compile-path programs turn on
              ``inductor.cpp_wrapper`` (the C++ wrapper ``torch.compile`` users enable), the
              note ``path=compile+cpp_wrapper``;
``hop``       the ``hop`` family's program for ``s`` (``torch.cond``, ``while_loop``, ``scan``,
              ``map``, ``associative_scan``, flex attention, ``vmap``, a nested region, ...)
              with probability ``hop_aoti`` through the export path (forward only), else
              through ``torch.compile`` with ``inductor.cpp_wrapper`` (gradients kept where the
              hop program judges them): the C++ wrapper's own code for conditionals and loops.

Every choice comes from ``random.Random("torchsmith-export:s:attempt")`` and the base family's
own seeded generator: same seed, same bytes. Candidates are eager-checked (the base family's
rules keep them valid; ``ValidatedFamily`` replaces an invalid one). ``Program.notes``:
``family=export``, ``base=``, ``path=aoti|compile``, and the base's notes (its ``mode=`` kept
as ``base_mode=``).
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from torchsmith.generate.export import chains, unbacked
from torchsmith.generate.family import FamilyStats, ValidatedFamily, note_values
from torchsmith.generate.hop import generator as hop_generator
from torchsmith.generate.protocol import GenContext, choose_names, get_generator
from torchsmith.program.format import COMPILE_KWARGS, Program

BASES = ("graph", "opinfo", "unbacked", "chain", "hop")
DEFAULT_WEIGHTS = {"graph": 0.2, "opinfo": 0.15, "unbacked": 0.15, "chain": 0.25, "hop": 0.25}
#: The opinfo modes the export path takes (``grad`` is not run through an exported program).
OPINFO_MODES = ("args", "dynamic")
EXPORT_KWARGS = {"backend": "aoti"}
CPP_WRAPPER = "inductor.cpp_wrapper"
#: The hop kinds the export base draws: ``grad``/``checkpoint`` are about gradients, which the
#: export path does not judge (their forward alone is a plain chain).
HOP_KINDS = [k for k in hop_generator.KINDS if k not in ("grad", "checkpoint")]


@dataclasses.dataclass
class ExportOptions:
    bases: str | None = None  # comma-separated bases (see BASES); default all
    unbacked_aoti: float = 0.5  # share of unbacked programs sent through the export path
    hop_aoti: float = 0.6  # share of hop programs sent through the export path
    max_tries: int = 8  # candidates eager-checked per seed before giving up
    check_timeout: float = 60.0  # seconds per eager check in the generator's own worker


@dataclasses.dataclass
class ExportStats(FamilyStats):
    produced: int = 0
    bases: Counter[str] = dataclasses.field(default_factory=Counter)  # of valid programs
    paths: Counter[str] = dataclasses.field(default_factory=Counter)
    templates: Counter[str] = dataclasses.field(default_factory=Counter)  # unbacked templates


def mark_for_export(source: str, kwargs: dict[str, Any] | None = None) -> str:
    """``source`` with its module-level ``compile_kwargs`` replaced by ``kwargs`` (default
    ``{"backend": "aoti"}``), appended when it has none. ``dynamic``/``fullgraph``/``mode`` mean
    nothing to the export path and are dropped with the old line."""
    kwargs = dict(EXPORT_KWARGS if kwargs is None else kwargs)
    line = f"{COMPILE_KWARGS} = {kwargs!r}"
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == COMPILE_KWARGS for t in targets):
            start, end = node.lineno - 1, (node.end_lineno or node.lineno)
            return "\n".join([*lines[:start], line, *lines[end:]]) + "\n"
    return source.rstrip("\n") + f"\n\n{line}\n"


def _parse_bases(spec: str | None) -> list[str]:
    return choose_names(spec, BASES, "export generator", "base(s)")


class ExportGenerator(ValidatedFamily):
    """The ``export`` family (see the module docstring)."""

    Options = ExportOptions
    name = "export"
    LIST_OPTIONS = ("bases",)

    def setup(self) -> None:
        self.bases = _parse_bases(self.opts.bases)
        for share in ("unbacked_aoti", "hop_aoti"):
            if not 0.0 <= getattr(self.opts, share) <= 1.0:
                raise ValueError(f"export generator: {share} must be within [0, 1]")
        self.stats = ExportStats()
        self._base_gens: dict[str, Any] = {}

    def _base(self, name: str) -> Any:
        """The base family's generator, built when first needed (opinfo loads its op database)."""
        if name not in self._base_gens:
            if name == "graph":
                self._base_gens[name] = get_generator("graph")
            else:
                mode = name.split(":", 1)[1]
                self._base_gens[name] = get_generator(
                    "opinfo", mode=mode, max_tries=self.opts.max_tries
                )
        return self._base_gens[name]

    def draw_base(self, seed: int) -> str:
        """The base of ``seed`` (a seeded weighted draw over the allowed bases)."""
        rng = random.Random(f"torchsmith-export-base:{seed}")
        weights = [DEFAULT_WEIGHTS[b] for b in self.bases]
        return rng.choices(self.bases, weights=weights, k=1)[0]

    def candidates(self, seed: int) -> Iterator[Program]:
        """The programs tried for ``seed``, in order (pure but for the base generators' own
        rendering: nothing is executed)."""
        base = self.draw_base(seed)
        if base == "graph":
            program = self._base("graph").generate(seed, GenContext())
            if program is not None:  # valid by construction: the one candidate
                yield self._wrap(seed, 0, program, base, "aoti")
            return
        if base == "opinfo":
            mode = random.Random(f"torchsmith-export-mode:{seed}").choice(OPINFO_MODES)
            for attempt, program in enumerate(self._base(f"opinfo:{mode}").candidates(seed)):
                yield self._wrap(seed, attempt, program, base, "aoti")
            return
        if base == "hop":
            yield from (self._hop(seed, attempt) for attempt in itertools.count())
            return
        yield from (self._unbacked(seed, attempt, base) for attempt in itertools.count())

    def _hop(self, seed: int, attempt: int) -> Program:
        rng = random.Random(f"torchsmith-export:hop:{seed}:{attempt}")
        aoti = rng.random() < self.opts.hop_aoti
        opts = hop_generator.HopOptions(max_tries=self.opts.max_tries)
        if aoti:
            program = hop_generator.render_program(seed, attempt, opts, HOP_KINDS, grads=False)
            return self._wrap(seed, attempt, program, "hop", "aoti")
        settings = {CPP_WRAPPER: True}
        program = hop_generator.render_program(seed, attempt, opts, HOP_KINDS, settings)
        return self._wrap(seed, attempt, program, "hop", "compile+cpp_wrapper", export=False)

    def _unbacked(self, seed: int, attempt: int, base: str = "unbacked") -> Program:
        tag = "" if base == "unbacked" else f"{base}:"
        rng = random.Random(f"torchsmith-export:{tag}{seed}:{attempt}")
        path = "aoti" if rng.random() < self.opts.unbacked_aoti else "compile"
        kwargs: dict[str, Any] = dict(EXPORT_KWARGS) if path == "aoti" else {}
        if path == "compile" and rng.random() < 0.3:
            kwargs["fullgraph"] = True
        header = [
            f"Generated by torchsmith export: seed={seed} attempt={attempt}",
            f"base: {base}; path: {path}",
        ]
        if base == "chain":
            config: dict[str, object] = {}
            if path == "compile" and rng.random() < 1 / 3:
                config[CPP_WRAPPER] = True
                path = "compile+cpp_wrapper"
            source, notes = chains.render(rng, header, kwargs, config)
        else:
            source, notes = unbacked.render(rng, header, kwargs)
        return Program(
            source,
            "fn",
            f"export_{seed}",
            "generated",
            notes=("family=export", f"base={base}", f"path={path}", *notes),
        )

    def _wrap(
        self, seed: int, attempt: int, program: Program, base: str, path: str, export: bool = True
    ) -> Program:
        head = f"# torchsmith export: seed={seed} attempt={attempt} base={base} path={path}\n"
        source = head + (mark_for_export(program.source) if export else program.source)
        kept = tuple(
            n.replace("mode=", "base_mode=", 1) if n.startswith("mode=") else n
            for n in program.notes
            if not n.startswith("family=")
        )
        notes = ("family=export", f"base={base}", f"path={path}", *kept)
        return Program(source, program.model, f"export_{seed}", "generated", notes=notes)

    def on_valid(self, program: Program) -> None:
        note = note_values(program)
        self.stats.produced += 1
        self.stats.bases[note.get("base", "?")] += 1
        self.stats.paths[note.get("path", "?")] += 1
        for n in program.notes:
            if n.startswith(("unbacked:", "chain:")):
                self.stats.templates[n.split(":", 1)[1]] += 1
            elif n.startswith("hop="):
                self.stats.templates[n] += 1

    def close(self) -> None:
        for gen in self._base_gens.values():
            close = getattr(gen, "close", None)
            if close is not None:
                close()
        super().close()
