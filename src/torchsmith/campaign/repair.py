"""A damaged campaign database: said in one line, salvaged row by row.

A disk that fills up, a file truncated or scribbled on by hand: :func:`store_damage` says what is
wrong (``status`` and ``fuzz --resume`` refuse with that line and the way out), and
:func:`repair_store` (``torchsmith status DIR --repair``) keeps the file aside and copies every
row that still reads into a new database.

A campaign killed between two writes is mended when it resumes: :func:`remove_orphans` drops
finding folders no row names (their seeds are checked again), :func:`relink_reductions` links a
reduced finding whose refinement the kill lost.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from torchsmith.campaign.reducer import refine_bug
from torchsmith.campaign.store import DB_NAME, TABLES, Store, copy_readable_rows, integrity_problem
from torchsmith.finding import FindingMeta, read_finding


def store_damage(folder: str | Path) -> str | None:
    """None when the campaign database reads whole; else what is wrong, in one line."""
    path = Path(folder) / DB_NAME if Path(folder).is_dir() else Path(folder)
    problem = integrity_problem(path)
    return f"{path}: {problem}" if problem is not None else None


def repair_store(folder: str | Path) -> dict[str, Any]:
    """Salvage a damaged campaign database: the file is kept aside as
    ``campaign.db.damaged-<time>`` and every row that still reads is copied into a new one.
    Seeds whose rows are lost are simply unrecorded: ``fuzz --resume`` checks them again.
    Returns what was kept per table (and ``intact`` when there was nothing to repair)."""
    folder = Path(folder)
    path = folder / DB_NAME
    damage = store_damage(folder)
    if damage is None:
        return {"repaired": False, "intact": True}
    aside = folder / f"{DB_NAME}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            src.rename(Path(str(aside) + suffix))
    kept: dict[str, int] = {}
    lost: dict[str, int] = {}
    with Store(folder) as new:
        for table in TABLES:
            hint = None
            if table == "programs":  # seeds are rowids: a damaged index still leaves the rows
                p = new.params()
                if p.get("count") is not None:
                    hint = range(int(p.get("seed", 0)), int(p.get("seed", 0)) + int(p["count"]))
            kept[table], lost[table] = copy_readable_rows(aside, new, table, hint)
    return {
        "repaired": True,
        "damage": damage,
        "kept": kept,
        "unreadable": lost,
        "moved_to": str(aside),
    }


def remove_orphans(store: Store, findings_dir: Path, recorded: set[int]) -> None:
    """Finding folders of seeds that were never recorded (killed between folder and row)."""
    if not findings_dir.is_dir():
        return
    named = {r["finding"] for r in store.rows(with_finding=True)}
    named |= {b.reduced_finding for b in store.bugs() if b.reduced_finding}
    for folder in findings_dir.iterdir():
        if not folder.is_dir():
            continue
        for tmp in folder.glob("*.tmp"):  # a write cut short; the real file is intact
            tmp.unlink()
        if folder.name in named:
            continue
        try:
            info = read_finding(folder).info
        except (OSError, ValueError):
            info = FindingMeta()  # no meta.json: the write never finished
        if info.reduced_from:
            continue
        if info.seed is None or info.seed not in recorded:
            shutil.rmtree(folder, ignore_errors=True)


def relink_reductions(store: Store, findings_dir: Path) -> None:
    """A reduced finding on disk whose refinement was lost to a kill is linked again."""
    for bug in store.bugs():
        if bug.category != "bug" or bug.reduced_finding:
            continue
        for row in store.rows(seed=bug.first_seed, with_finding=True):
            try:
                info = read_finding(findings_dir / row["finding"]).info
                if info.reduced_to is None:
                    continue
                reduced = read_finding(findings_dir / info.reduced_to)
            except (OSError, ValueError):
                continue
            refine_bug(store, bug.signature, reduced)
