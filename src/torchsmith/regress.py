"""Findings re-checked across torch versions: which releases a bug affects, and whether it is fixed.

:func:`regress` re-checks each finding's program, with the finding's own check options, under
other Python environments (each a venv with its own torch), one crash-safe
:class:`~torchsmith.execute.worker.Worker` per interpreter (started once, reused for every
finding; a program that kills it only costs a restart). Per version the result is one row:

* ``live``: a compiler bug with the finding's verdict and stage (``same_signature`` says whether
  the dedup signature matches too: messages and innermost frames move between releases);
* ``other-bug``: a compiler bug, but another verdict or stage;
* ``live`` and ``other-bug`` take lesser bugs (``imprecise``) too: the categories are
  :class:`~torchsmith.verdict.Category`'s, as everywhere;
* ``passes``: ``pass``: fixed there, or not yet broken;
* ``not-judged``: the program itself fails there (``invalid``, a death outside compiled code,
  ...), e.g. an op that release does not have, or the tool cannot tell (``unstable``);
* ``error``: the interpreter could not run a worker, or torchsmith failed inside it.

Rows sort by torch version; between neighbours that were judged, fails -> passes reads "fixed
between X and Y", passes -> fails "regressed between X and Y"; a bug in the newest version is
"still live". The finding's own record (``meta.json``) is a row too, unless a re-check ran on
that torch version. The table is stored as ``regress.json`` in the finding folder (rows of
earlier runs for other interpreters are kept) and ``torchsmith report`` shows it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from torchsmith import dedup
from torchsmith.campaign.store import DB_NAME, Store
from torchsmith.check import CheckError, check_program
from torchsmith.execute.worker import Worker
from torchsmith.finding import FINDINGS, META, Finding, list_findings, read_finding
from torchsmith.jsonable import Jsonable
from torchsmith.verdict import Category, CheckResult

REGRESS_JSON = "regress.json"

SCHEMA = 1
#: Verdicts that mean "no compiler bug here" (the compiled result is acceptable).
_FAILS, _PASSES = ("live", "other-bug"), ("passes",)


@dataclasses.dataclass
class VersionRow(Jsonable):
    """The finding's program under one interpreter (or as recorded, ``recorded=True``)."""

    python: str
    torch: str | None
    status: str  # live | other-bug | passes | not-judged | error
    verdict: str | None = None
    stage: str | None = None
    signature: str | None = None
    same_signature: bool = False
    reason: str = ""
    seconds: float = 0.0
    recorded: bool = False
    checked_at: float = 0.0


def version_key(version: str | None) -> tuple[Any, ...]:
    """Sort key for torch versions: ``2.6.0+cu124 < 2.13.0.dev20260101 < 2.13.0rc1 < 2.13.0``
    (the local ``+...`` part is ignored; unparsable versions sort last)."""
    m = re.match(r"(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?", version or "")
    if not m:
        return (1, (), 0, 0, 0, version or "")
    release = tuple(int(x) for x in m.group(1).split("."))
    release += (0,) * (4 - len(release))
    pre = {"a": 1, "b": 2, "rc": 3}.get(m.group(2) or "", 4)
    if m.group(5) is not None and m.group(2) is None:
        pre = 0  # a nightly comes before every pre-release and the release
    return (0, release, pre, int(m.group(3) or 0), int(m.group(4) or 0), int(m.group(5) or 0))


def _short(text: str, limit: int = 140) -> str:
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _signature_of(finding: Finding) -> str:
    return finding.signature or dedup.signature(finding.result, finding.program)


def classify(finding: Finding, result: CheckResult) -> tuple[str, bool, str | None]:
    """(status, same signature, signature) of ``result``, a re-check of ``finding``."""
    orig = finding.result
    if result.is_bug:
        sig = dedup.signature(result, finding.program)
        same = result.verdict is orig.verdict and result.stage == orig.stage
        return ("live" if same else "other-bug"), sig == _signature_of(finding), sig
    if result.category is Category.PASS:
        return "passes", False, None
    return "not-judged", False, None


def recorded_row(finding: Finding) -> VersionRow:
    """The finding's own record, as a row."""
    r = finding.result
    return VersionRow(
        python="(recorded in meta.json)",
        torch=finding.info.torch,
        status="live" if r.is_bug else ("passes" if r.category is Category.PASS else "not-judged"),
        verdict=r.verdict.value,
        stage=r.stage.value if r.stage else None,
        signature=_signature_of(finding),
        same_signature=True,
        reason=_short(r.reason),
        recorded=True,
        checked_at=float(finding.info.created),
    )


def recheck(
    finding: Finding, worker: Worker, python: str, timeout: float | None = None
) -> VersionRow:
    """One re-check of ``finding`` in ``worker`` (started under ``python``)."""
    options = finding.options
    if timeout is not None:
        options = options.replace(timeout=timeout)
    t0 = time.monotonic()
    try:
        result = check_program(finding.program, options, worker)
    except (CheckError, RuntimeError) as e:  # torchsmith failed, or the worker cannot restart
        return VersionRow(
            python,
            worker.torch_version,
            "error",
            reason=_short(str(e)),
            seconds=round(time.monotonic() - t0, 1),
            checked_at=time.time(),
        )
    status, same, sig = classify(finding, result)
    return VersionRow(
        python=python,
        torch=worker.torch_version,
        status=status,
        verdict=result.verdict.value,
        stage=result.stage.value if result.stage else None,
        signature=sig,
        same_signature=same,
        reason=_short(result.reason),
        seconds=round(time.monotonic() - t0, 1),
        checked_at=time.time(),
    )


def verdict_lines(rows: Sequence[VersionRow]) -> list[str]:
    """``fixed between X and Y`` / ``regressed between X and Y`` / ``still live in Y`` (the rows
    in version order; rows that were not judged are skipped)."""
    judged = [
        r
        for r in sorted(rows, key=lambda r: version_key(r.torch))
        if r.status in _FAILS + _PASSES and r.torch
    ]
    if not judged:
        return ["no version could judge the program"]
    out = []
    for a, b in zip(judged, judged[1:]):
        if a.status in _FAILS and b.status in _PASSES:
            out.append(f"fixed between {a.torch} and {b.torch}")
        elif a.status in _PASSES and b.status in _FAILS:
            out.append(f"regressed between {a.torch} and {b.torch}")
    newest = judged[-1]
    if newest.status in _FAILS:
        out.append(f"still live in {newest.torch} (the newest checked)")
    elif not any(r.status in _FAILS for r in judged):
        out.append("does not reproduce on any version checked")
    return out


def table(finding: Finding, rows: Sequence[VersionRow]) -> dict[str, Any]:
    """The stored form: the re-check rows, the record (when its torch was not re-checked) and
    the verdict lines, in version order."""
    rows = list(rows)
    rec = recorded_row(finding)
    if rec.torch and all(r.torch != rec.torch for r in rows if not r.recorded):
        rows.append(rec)
    rows = [r for r in rows if not r.recorded or r is rec]
    rows.sort(key=lambda r: (version_key(r.torch), r.recorded, r.python))
    return {
        "schema": SCHEMA,
        "finding": finding.id,
        "signature": _signature_of(finding),
        "updated": time.time(),
        "rows": [r.to_dict() for r in rows],
        "summary": verdict_lines(rows),
    }


def read_regress(folder: str | Path) -> dict[str, Any] | None:
    """The stored version table of the finding in ``folder`` (None when there is none)."""
    path = Path(folder) / REGRESS_JSON
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("rows") is not None else None


def write_regress(finding: Finding, rows: Sequence[VersionRow]) -> dict[str, Any]:
    """Merge ``rows`` into the finding's ``regress.json`` (a row per interpreter: new rows
    replace earlier ones for the same interpreter) and write it atomically; returns the table."""
    old = read_regress(finding.folder) or {}
    fresh = {r.python for r in rows}
    kept = [VersionRow.from_dict(d) for d in old.get("rows", []) if d.get("python") not in fresh]
    data = table(finding, [*kept, *rows])
    path = finding.folder / REGRESS_JSON
    tmp = path.with_name(f"{REGRESS_JSON}.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)
    return data


def targets(path: str | Path) -> list[Finding]:
    """The findings ``regress`` re-checks for ``path``: a finding folder itself; for a campaign
    folder (or its ``findings/``), the smallest finding of each distinct compiler bug."""
    path = Path(path)
    if (path / META).exists():
        return [read_finding(path)]
    if (path / DB_NAME).exists():
        with Store(path, readonly=True) as store:
            smallest = [b.smallest for b in store.bugs() if b.category == "bug" and b.smallest]
        return [read_finding(path / FINDINGS / s) for s in smallest]
    found = [f for f in list_findings(path) if f.result.is_bug]
    if not found:
        raise FileNotFoundError(f"{path}: neither a finding folder nor a campaign with bugs")
    return found


def regress(
    findings: Sequence[Finding],
    pythons: Sequence[str],
    *,
    timeout: float | None = None,
    jobs: int = 1,
    store: bool = True,
    progress: Callable[[str], None] = lambda line: None,
) -> list[dict[str, Any]]:
    """Re-check every finding under every interpreter in ``pythons``; returns one table per
    finding (as stored in ``regress.json`` when ``store``). ``jobs`` interpreters run at once,
    each in its own worker; an interpreter whose worker cannot start gives ``error`` rows."""
    results: dict[str, list[VersionRow]] = {f.id: [] for f in findings}
    lock = threading.Lock()

    def one_python(python: str) -> None:
        memory = max((f.options.memory_mb for f in findings), default=8192)
        worker = Worker(memory_mb=memory, python=python)
        try:
            try:
                worker.start()
            except (RuntimeError, OSError) as e:
                rows = [
                    VersionRow(
                        python, None, "error", reason=_short(f"worker: {e}"), checked_at=time.time()
                    )
                    for _ in findings
                ]
            else:
                rows = []
                for f in findings:
                    rows.append(recheck(f, worker, python, timeout))
                    progress(f"{f.id}: torch {rows[-1].torch} ({python}): {rows[-1].status}")
        finally:
            worker.close()
        with lock:
            for f, row in zip(findings, rows):
                results[f.id].append(row)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one_python, list(dict.fromkeys(pythons))))
    out = []
    for f in findings:
        rows = results[f.id]
        out.append(write_regress(f, rows) if store else table(f, rows))
    return out


def markdown_lines(data: dict[str, Any]) -> list[str]:
    """The version table as Markdown: one row per torch version, then the verdict lines."""
    lines = [
        "| torch | verdict | stage | same signature | status | python |",
        "|---|---|---|---|---|---|",
    ]
    for d in data.get("rows", []):
        r = VersionRow.from_dict(d)
        mark = {"live": "❌", "other-bug": "❌", "passes": "✅"}.get(r.status, "➖")
        same = ("yes" if r.same_signature else "no") if r.status in _FAILS else ""
        python = "recorded" if r.recorded else f"`{r.python}`"
        lines.append(
            f"| {r.torch or '?'} | {r.verdict or '-'} | {r.stage or '-'} | {same} |"
            f" {mark} {r.status} | {python} |"
        )
    lines.append("")
    lines += [f"- {s}" for s in data.get("summary", [])]
    return lines


def text_lines(data: dict[str, Any]) -> list[str]:
    """The version table as aligned plain text (what ``torchsmith regress`` prints)."""
    head = ("torch", "verdict", "stage", "status", "python / reason")
    body = []
    for d in data.get("rows", []):
        r = VersionRow.from_dict(d)
        status = r.status + (" (same signature)" if r.same_signature and not r.recorded else "")
        where = "recorded" if r.recorded else r.python
        if r.status in ("error", "not-judged", "other-bug"):
            where += f": {r.reason}"
        body.append((r.torch or "?", r.verdict or "-", r.stage or "-", status, where))
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(4)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    return [fmt.format(*head), *(fmt.format(*row) for row in body)] + [
        f"=> {s}" for s in data.get("summary", [])
    ]
