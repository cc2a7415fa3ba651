"""Findings as data: one folder per finding that dedup, reduction and reports all read.

Layout of ``<root>/<finding id>/``:

* ``meta.json``  the :class:`~torchsmith.verdict.CheckResult` (schema v1) plus ``id``,
  ``signature``, ``generator``, ``seed``, ``program_name``, ``model``, ``origin``, ``versions``,
  ``created``, and after reduction ``reduced_from`` / ``reduction``;
* ``program.py``  the program in the canonical format (what ``torchsmith check`` reads);
* ``repro.py``    the standalone script (``render_script``) that exits 1 while the bug shows;
* ``repro_plain.py`` the same program as a short plain script (eager vs compiled vs float64,
  printed, no harness) and ``bisect_test.py`` as ``test_fn() -> bool`` for
  ``CompilerBisector.do_bisect`` (:mod:`torchsmith.program.plain`);
* ``log.txt``     the traceback tail and the worker's log around the failure.

Ids are ``<verdict>-<stage>-<program digest>``: the same program failing the same way lands in
the same folder, so writing a finding twice is harmless (crash-safe campaigns rely on that).
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import threading
import time
from pathlib import Path
from typing import Any

from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.program.plain import bisector_script, plain_script
from torchsmith.program.render import render_script
from torchsmith.verdict import CheckResult

#: The campaign folder's subfolder of finding folders.
FINDINGS = "findings"
META = "meta.json"
PROGRAM = "program.py"
REPRO = "repro.py"
#: The short plain repro a maintainer reads (no harness) and the CompilerBisector form.
PLAIN = "repro_plain.py"
BISECT = "bisect_test.py"
LOG = "log.txt"


@dataclasses.dataclass(frozen=True)
class FindingMeta:
    """The finding-level keys of ``meta.json`` (besides the :class:`CheckResult`), typed: what
    reports, ``regress``, the page and the campaign read. Every key is optional on disk (older
    folders, folders written by ``minify``); a missing one reads as its default."""

    id: str = ""
    signature: str | None = None
    readable_signature: str | None = None
    generator: str | None = None
    seed: int | None = None
    known: bool = False
    category: str | None = None  # the campaign's row category: bug or fault
    campaign: str | None = None
    versions: dict[str, str] = dataclasses.field(default_factory=dict)
    created: float = 0.0
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    reduced_from: str | None = None  # this is the reduced form of that finding
    reduced_to: str | None = None  # that finding is this one, reduced
    original_signature: str | None = None
    reduction: dict[str, Any] = dataclasses.field(default_factory=dict)
    minified_from: str | None = None
    config_settings: dict[str, Any] | None = None  # fuzz --config-space: the minimal failing set
    config_sampled: dict[str, Any] | None = None  # the sampled settings it was found under

    @property
    def torch(self) -> str | None:
        """The torch version the finding was recorded with."""
        return self.versions.get("torch")

    @classmethod
    def of(cls, meta: dict[str, Any]) -> FindingMeta:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in meta.items() if k in names and v is not None})


@dataclasses.dataclass
class Finding:
    folder: Path
    meta: dict[str, Any]
    program: Program

    @property
    def info(self) -> FindingMeta:
        """``meta.json``'s finding-level keys, typed (read these, not ``meta``)."""
        return FindingMeta.of(self.meta)

    @property
    def id(self) -> str:
        return self.meta["id"]

    @property
    def result(self) -> CheckResult:
        return CheckResult.from_dict(self.meta)

    @property
    def options(self) -> CheckOptions:
        return CheckOptions.from_dict(self.meta.get("options") or {})

    @property
    def signature(self) -> str | None:
        return self.meta.get("signature")


def finding_id(program: Program, result: CheckResult) -> str:
    stage = result.stage.value if result.stage else "unlocalized"
    return f"{result.verdict.value}-{stage}-{program.digest}"


def versions(checked_with: str = "") -> dict[str, str]:
    """This process's versions; ``checked_with`` is the torch that gave the verdict (a worker
    under another interpreter, ``--python``), recorded instead of this process's torch."""
    import torch

    out = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cuda": str(torch.version.cuda),
    }
    if checked_with and checked_with != torch.__version__:
        out.update(torch=checked_with, cuda="unknown", driver_torch=torch.__version__)
    return out


def _atomic_write(path: Path, text: str) -> None:
    # a temp name per writer: two threads or processes may write the same finding at once
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_finding(
    root: str | Path,
    program: Program,
    result: CheckResult,
    *,
    signature: str | None = None,
    generator: str | None = None,
    seed: int | None = None,
    extra: dict[str, Any] | None = None,
) -> Finding:
    """Write (or overwrite) the folder for ``result`` on ``program``; meta.json is written last."""
    fid = finding_id(program, result)
    folder = Path(root) / fid
    folder.mkdir(parents=True, exist_ok=True)
    options = CheckOptions.from_dict(result.options) if result.options else CheckOptions()
    header = f"torchsmith finding {fid}\n{result.verdict.value}: {result.reason}"
    _atomic_write(folder / PROGRAM, program.source)
    _atomic_write(folder / REPRO, render_script(program, options, header=header))
    written = str(result.evidence.get("output", "")).startswith("input")  # judged in place
    _atomic_write(folder / PLAIN, plain_script(program, options, inputs=written))
    _atomic_write(folder / BISECT, bisector_script(program, options))
    log = [result.reason]
    if result.evidence.get("traceback_tail"):
        log += ["", "traceback (tail):", result.evidence["traceback_tail"]]
    if result.log_tail:
        log += ["", "worker log (tail):", result.log_tail]
    _atomic_write(folder / LOG, "\n".join(log) + "\n")
    meta = result.to_dict()
    meta.update(
        {
            "id": fid,
            "signature": signature,
            "generator": generator,
            "seed": seed,
            "program_name": program.name,
            "model": program.model,
            "origin": program.origin,
            "program_notes": list(program.notes),
            "versions": versions(result.torch),
            "created": time.time(),
        }
    )
    if extra:
        meta.update(extra)
    _atomic_write(folder / META, json.dumps(meta, indent=2, default=str) + "\n")
    return Finding(folder, meta, _program_of(folder, meta))


def _program_of(folder: Path, meta: dict[str, Any]) -> Program:
    return Program(
        source=(folder / PROGRAM).read_text(),
        model=meta.get("model", "Model"),
        name=meta.get("program_name", folder.name),
        origin=meta.get("origin", "canonical"),
        path=str(folder / PROGRAM),
        notes=tuple(meta.get("program_notes", ())),
    )


def read_finding(folder: str | Path) -> Finding:
    """Load a finding folder; raises FileNotFoundError / ValueError on a broken one."""
    folder = Path(folder)
    meta_path = folder / META
    if not meta_path.exists():
        raise FileNotFoundError(f"{folder}: not a finding folder (no {META})")
    meta = json.loads(meta_path.read_text())
    return Finding(folder, meta, _program_of(folder, meta))


def update_meta(finding: Finding, **changes: Any) -> Finding:
    finding.meta.update(changes)
    _atomic_write(finding.folder / META, json.dumps(finding.meta, indent=2, default=str) + "\n")
    return finding


def list_findings(root: str | Path) -> list[Finding]:
    root = Path(root)
    if not root.is_dir():
        return []
    return [read_finding(p) for p in sorted(root.iterdir()) if (p / META).exists()]
