"""A damaged campaign database: said in one line, salvaged row by row.

A disk that fills up, a file truncated or scribbled on by hand: :func:`store_damage` says what is
wrong (``status`` and ``fuzz --resume`` refuse with that line and the way out), and
:func:`repair_store` (``torchsmith status DIR --repair``) keeps the file aside and copies every
row that still reads into a new database.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from torchsmith.store import DB_NAME, Store

_TABLES = ("campaign", "options", "programs", "aliases", "bug_notes")


def store_damage(folder: str | Path) -> str | None:
    """None when the campaign database reads whole; else what is wrong, in one line."""
    path = Path(folder) / DB_NAME if Path(folder).is_dir() else Path(folder)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            result = db.execute("PRAGMA integrity_check").fetchall()
            for table in _TABLES:
                db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        return f"{path}: {e}"
    bad = [r[0] for r in result if r[0] != "ok"]
    return f"{path}: {bad[0]}" if bad else None


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
        try:
            old = sqlite3.connect(f"file:{aside}?mode=ro", uri=True)
        except sqlite3.DatabaseError:
            old = None
        for table in _TABLES:
            hint = None
            if table == "programs":  # seeds are rowids: a damaged index still leaves the rows
                p = new.params()
                if p.get("count") is not None:
                    hint = range(int(p.get("seed", 0)), int(p.get("seed", 0)) + int(p["count"]))
            kept[table], lost[table] = _copy_table(old, new.db, table, hint) if old else (0, 0)
        if old is not None:
            old.close()
    return {"repaired": True, "damage": damage, "kept": kept, "unreadable": lost,
            "moved_to": str(aside)}  # fmt: skip


def _copy_table(
    old: sqlite3.Connection, new: sqlite3.Connection, table: str, hint: range | None = None
) -> tuple[int, int]:
    """Rows of ``table`` that read, copied by rowid one at a time past damaged pages (over
    ``hint`` when the table's own bounds do not read)."""
    try:
        cols = [r[1] for r in old.execute(f"PRAGMA table_info({table})")]
    except sqlite3.DatabaseError:
        return 0, 0
    try:
        lo, hi = old.execute(f"SELECT MIN(rowid), MAX(rowid) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        lo, hi = (hint.start, hint.stop - 1) if hint else (None, None)
    if lo is None or not cols:
        return 0, 0
    names = ", ".join(cols)
    marks = ", ".join("?" * len(cols))
    kept = lost = 0
    for rowid in range(lo, hi + 1):
        try:
            row = old.execute(f"SELECT {names} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            lost += 1
            continue
        if row is None:
            continue
        try:
            new.execute(f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({marks})", row)
            kept += 1
        except sqlite3.DatabaseError:
            lost += 1
    return kept, lost
