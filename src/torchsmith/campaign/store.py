"""The campaign store: one SQLite database (``campaign.db``, WAL) in the campaign folder.

Tables (schema :data:`SCHEMA`, kept in ``PRAGMA user_version``):

* ``campaign(key, value)``: the campaign's parameters and state as JSON values (``seed``,
  ``count``, ``time_budget``, ``generator``, ``gen_options``, ``options``, ``known``, ``state``,
  ``elapsed_s``, ``pid``, ``heartbeat``, ...), so ``--resume`` continues with the same options
  and ``torchsmith status`` can tell a running campaign from a dead one;
* ``programs``: one row per seed (the primary key: a seed is recorded at most once): generator,
  program name and digest, verdict, phase, stage, symptom, category (``bug`` a compiler bug,
  ``fault`` a death or hang outside the compiled phases, ``-`` otherwise), signature, readable
  signature, known flag, finding id, size (code lines, ops), per-phase timings, seconds spent in
  the worker, wall seconds, worker deaths, options id, error;
* ``options(id, json)``: check options by content hash (rows name theirs by id);
* ``aliases(raw, bug)`` and ``bug_notes(signature, readable, reduced_finding, refined_from,
  path_wide)``: signature refinements, and the path canary's reason for a path-wide bug.
  :meth:`Store.set_bug_signature` (the reducer's hook) maps a bug's signature to a finer one;
  rows keep the signature they were recorded with and are grouped by
  ``COALESCE(aliases.bug, programs.signature)``.

Crash safety: a seed's row is written in one transaction, after its finding folder; a seed
without a row is checked again on resume (and its folder rewritten: ids are idempotent). WAL with
``synchronous=NORMAL`` survives SIGKILL of the writer (not power loss of the last transaction).
One writer at a time: the campaign funnels every write through one thread
(:class:`~torchsmith.campaign.writer.Writer`); ``torchsmith status`` opens the file read-only.
All of the project's SQL is here: other modules call named queries (:meth:`Store.rows` with
column filters, :func:`integrity_problem`, :func:`copy_readable_rows`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from torchsmith.known import passes_on
from torchsmith.verdict import Verdict

DB_NAME = "campaign.db"
SCHEMA = 1
HEARTBEAT_S = 5.0

_DDL = """
CREATE TABLE IF NOT EXISTS campaign (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS options (id TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS programs (
    seed INTEGER PRIMARY KEY,
    generator TEXT NOT NULL,
    name TEXT, digest TEXT,
    status TEXT NOT NULL,          -- checked | no-program | error
    verdict TEXT, phase TEXT, stage TEXT, symptom TEXT,
    category TEXT NOT NULL DEFAULT '-',   -- bug | fault | -
    signature TEXT, readable TEXT, known INTEGER NOT NULL DEFAULT 0,
    finding TEXT, lines INTEGER, ops INTEGER,
    reason TEXT, timings TEXT,
    work_s REAL, gen_s REAL, wall_s REAL,
    worker_deaths INTEGER NOT NULL DEFAULT 0,
    options_id TEXT, error TEXT,
    recorded REAL NOT NULL,
    node TEXT                      -- the Ray node that checked it (NULL: this machine)
);
CREATE INDEX IF NOT EXISTS programs_signature ON programs(signature) WHERE signature IS NOT NULL;
CREATE TABLE IF NOT EXISTS aliases (raw TEXT PRIMARY KEY, bug TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bug_notes (
    signature TEXT PRIMARY KEY, readable TEXT, reduced_finding TEXT, refined_from TEXT,
    path_wide TEXT                 -- why a trivial program fails the same way (the canary)
);
"""

#: Verdicts for which the program ran in eager: it was a valid test of the compiler.
#: Verdicts of programs that ran in eager (valid test programs), as stored.
VALID_VERDICTS = sorted(v.value for v in Verdict if v.eager_valid)


@dataclasses.dataclass
class ProgramRow:
    """What the campaign records for one seed."""

    seed: int
    generator: str
    status: str = "checked"
    name: str | None = None
    digest: str | None = None
    verdict: str | None = None
    phase: str | None = None
    stage: str | None = None
    symptom: str | None = None
    category: str = "-"
    signature: str | None = None
    readable: str | None = None
    known: bool = False
    finding: str | None = None
    lines: int | None = None
    ops: int | None = None
    reason: str | None = None
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    work_s: float = 0.0
    gen_s: float = 0.0
    wall_s: float = 0.0
    worker_deaths: int = 0
    options: dict[str, Any] | None = None
    error: str | None = None
    node: str | None = None  # the Ray node that checked it

    @property
    def valid(self) -> bool:
        return self.category == "bug" or self.verdict in VALID_VERDICTS


@dataclasses.dataclass
class RecordAck:
    """The writer's answer to :meth:`Store.record`."""

    inserted: bool  # False: the seed was already recorded (nothing changed)
    bug: str | None = None  # the bug's current signature (after refinements)
    new_bug: bool = False  # first finding with that signature in this campaign


@dataclasses.dataclass
class Bug:
    """Findings with one signature."""

    signature: str
    readable: str
    category: str  # bug | fault
    count: int
    verdicts: list[str]
    stage: str | None
    known: bool
    smallest: str | None  # finding id of the smallest example
    smallest_size: tuple[int, int]
    first_seed: int
    seeds: list[int]
    reduced_finding: str | None = None
    raw_signatures: list[str] = dataclasses.field(default_factory=list)
    path_wide: str | None = None  # why a trivial program on its path fails the same way
    passes: list[str] = dataclasses.field(default_factory=list)  # opt-in passes it ran with

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["seeds"] = self.seeds[:20]
        return d


def options_id(options: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:16]


class Store:
    """One connection to a campaign database. Not thread-safe: one thread per Store."""

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        path = Path(path)
        if path.is_dir():
            path = path / DB_NAME
        self.path = path
        self.readonly = readonly
        if readonly:
            if not path.exists():
                raise FileNotFoundError(f"{path}: no campaign database")
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        self.db.row_factory = sqlite3.Row
        self._known_options: set[str] = set()

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA:
            raise RuntimeError(f"{self.path}: schema {version} is newer than this torchsmith's")
        self.db.executescript(_DDL)
        cols = {r[1] for r in self.db.execute("PRAGMA table_info(programs)")}
        if "node" not in cols:  # a campaign started before Ray workers
            self.db.execute("ALTER TABLE programs ADD COLUMN node TEXT")
        if "path_wide" not in {r[1] for r in self.db.execute("PRAGMA table_info(bug_notes)")}:
            self.db.execute("ALTER TABLE bug_notes ADD COLUMN path_wide TEXT")  # before the canary
        self.db.execute(f"PRAGMA user_version={SCHEMA}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- campaign parameters and state ------------------------------------------------------------
    def params(self) -> dict[str, Any]:
        rows = self.db.execute("SELECT key, value FROM campaign").fetchall()
        return {r["key"]: json.loads(r["value"]) for r in rows}

    def set_params(self, **values: Any) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT INTO campaign(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [(k, json.dumps(v, default=str)) for k, v in values.items()],
            )

    def heartbeat(self, elapsed_s: float | None = None) -> None:
        values: dict[str, Any] = {"heartbeat": time.time()}
        if elapsed_s is not None:
            values["elapsed_s"] = round(elapsed_s, 3)
        self.set_params(**values)

    # -- programs ---------------------------------------------------------------------------------
    def recorded_in(self, start: int, stop: int) -> int:
        """How many seeds in ``start <= seed < stop`` have a row."""
        q = "SELECT COUNT(*) FROM programs WHERE seed >= ? AND seed < ?"
        return int(self.db.execute(q, (start, stop)).fetchone()[0])

    def recorded_seeds(self) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT seed FROM programs")}

    def _bug_of(self, sig: str) -> str:
        row = self.db.execute("SELECT bug FROM aliases WHERE raw = ?", (sig,)).fetchone()
        return row[0] if row else sig

    def _has_bug(self, bug: str) -> bool:
        q = (
            "SELECT 1 FROM programs p LEFT JOIN aliases a ON a.raw = p.signature"
            " WHERE p.finding IS NOT NULL AND COALESCE(a.bug, p.signature) = ? LIMIT 1"
        )
        return self.db.execute(q, (bug,)).fetchone() is not None

    def record(self, row: ProgramRow) -> RecordAck:
        """Insert ``row`` in one transaction; a seed already recorded is left as it is."""
        oid = None
        if row.options is not None:
            oid = options_id(row.options)
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if self.db.execute("SELECT 1 FROM programs WHERE seed = ?", (row.seed,)).fetchone():
                return RecordAck(inserted=False)
            if oid is not None and oid not in self._known_options:
                self.db.execute(
                    "INSERT OR IGNORE INTO options(id, json) VALUES (?, ?)",
                    (oid, json.dumps(row.options, sort_keys=True)),
                )
            bug = self._bug_of(row.signature) if row.signature else None
            new_bug = bool(row.finding and bug and not self._has_bug(bug))
            self.db.execute(
                "INSERT INTO programs(seed, generator, name, digest, status, verdict, phase, stage,"
                " symptom, category, signature, readable, known, finding, lines, ops, reason,"
                " timings, work_s, gen_s, wall_s, worker_deaths, options_id, error, recorded, node)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                " ?)",
                (
                    row.seed,
                    row.generator,
                    row.name,
                    row.digest,
                    row.status,
                    row.verdict,
                    row.phase,
                    row.stage,
                    row.symptom,
                    row.category,
                    row.signature,
                    row.readable,
                    int(row.known),
                    row.finding,
                    row.lines,
                    row.ops,
                    row.reason,
                    json.dumps(row.timings),
                    row.work_s,
                    row.gen_s,
                    row.wall_s,
                    row.worker_deaths,
                    oid,
                    row.error,
                    time.time(),
                    row.node,
                ),
            )
        if oid is not None:
            self._known_options.add(oid)
        return RecordAck(inserted=True, bug=bug, new_bug=new_bug)

    def rows(self, *, with_finding: bool = False, **equal: Any) -> list[dict[str, Any]]:
        """Program rows by seed: all of them, or those whose columns equal ``equal``'s values
        (``status="error"``, ``category="bug"``, ``seed=7``) and, with ``with_finding``, that
        name a finding folder. An unknown column raises ``ValueError``."""
        bad = sorted(set(equal) - self._columns("programs"))
        if bad:
            raise ValueError(f"no such programs column: {', '.join(bad)}")
        where = [f"{c} = ?" for c in equal] + (["finding IS NOT NULL"] if with_finding else [])
        q = f"SELECT * FROM programs WHERE {' AND '.join(where) or '1'} ORDER BY seed"
        out = []
        for r in self.db.execute(q, tuple(equal.values())):
            d = dict(r)
            d["timings"] = json.loads(d["timings"] or "{}")
            d["known"] = bool(d["known"])
            out.append(d)
        return out

    def _columns(self, table: str) -> set[str]:
        return {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}

    def options_of(self, oid: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT json FROM options WHERE id = ?", (oid,)).fetchone()
        return json.loads(row[0]) if row else None

    # -- bugs ---------------------------------------------------------------------------------------
    def set_bug_signature(
        self,
        old: str,
        new: str,
        readable: str | None = None,
        reduced_finding: str | None = None,
    ) -> None:
        """Refine a bug: findings recorded under ``old`` (or already mapped to it) now count
        toward ``new``; bugs that refine to the same ``new`` merge. ``readable`` names ``new`` in
        words and ``reduced_finding`` is the id (or path) of the reduced example, if any.

        This is the reduction hook: after reducing a bug's smallest example, call it with the
        signature of the reduced program (``dedup.signature(reduced.result, reduced.program)``).
        """
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            current = self._bug_of(old)
            if new != current:
                self.db.execute("UPDATE aliases SET bug = ? WHERE bug = ?", (new, current))
                for raw in {old, current} - {new}:
                    self.db.execute(
                        "INSERT INTO aliases(raw, bug) VALUES (?, ?)"
                        " ON CONFLICT(raw) DO UPDATE SET bug = excluded.bug",
                        (raw, new),
                    )
                self.db.execute("DELETE FROM aliases WHERE raw = bug")
            self.db.execute(
                "INSERT INTO bug_notes(signature, readable, reduced_finding, refined_from)"
                " VALUES (?, ?, ?, ?) ON CONFLICT(signature) DO UPDATE SET"
                " readable = COALESCE(excluded.readable, readable),"
                " reduced_finding = COALESCE(excluded.reduced_finding, reduced_finding),"
                " refined_from = COALESCE(excluded.refined_from, refined_from)",
                (new, readable, reduced_finding, current if new != current else None),
            )

    def set_path_wide(self, bug: str, why: str) -> None:
        """Mark ``bug`` (its current signature, after refinements) path-wide, with the reason."""
        with self.db:
            self.db.execute(
                "INSERT INTO bug_notes(signature, path_wide) VALUES (?, ?)"
                " ON CONFLICT(signature) DO UPDATE SET path_wide = excluded.path_wide",
                (self._bug_of(bug), why),
            )

    def bugs(self, known: set[str] | frozenset[str] | None = None) -> list[Bug]:
        """Findings grouped by (refined) signature, biggest group first.

        ``known``: mark bugs known by this list (signature or readable form, raw or refined);
        without it a bug is known when one of its findings was marked known when recorded.
        """
        q = (
            "SELECT COALESCE(a.bug, p.signature) AS bug, p.* FROM programs p"
            " LEFT JOIN aliases a ON a.raw = p.signature"
            " WHERE p.finding IS NOT NULL ORDER BY p.seed"
        )
        notes = {r["signature"]: dict(r) for r in self.db.execute("SELECT * FROM bug_notes")}
        groups: dict[str, Bug] = {}
        for r in self.db.execute(q):
            sig = r["bug"]
            size = (r["lines"] or 0, r["ops"] or 0)
            b = groups.get(sig)
            if b is None:
                note = notes.get(sig, {})
                b = groups[sig] = Bug(
                    signature=sig,
                    readable=note.get("readable") or r["readable"] or "",
                    category=r["category"],
                    count=0,
                    verdicts=[],
                    stage=r["stage"] or r["phase"],
                    known=False,
                    smallest=r["finding"],
                    smallest_size=size,
                    first_seed=r["seed"],
                    seeds=[],
                    reduced_finding=note.get("reduced_finding"),
                    path_wide=note.get("path_wide"),
                )
            b.count += 1
            b.seeds.append(r["seed"])
            if r["verdict"] not in b.verdicts:
                b.verdicts.append(r["verdict"])
            if r["signature"] not in b.raw_signatures:
                b.raw_signatures.append(r["signature"])
            if size < b.smallest_size or b.count == 1:
                b.smallest, b.smallest_size = r["finding"], size
                opts = self.options_of(r["options_id"]) if r["options_id"] else None
                b.passes = sorted(passes_on((opts or {}).get("config")))
            if known is None:
                b.known = b.known or bool(r["known"])
            else:
                b.known = b.known or r["signature"] in known or (r["readable"] or "") in known
        if known is not None:
            for b in groups.values():
                b.known = b.known or b.signature in known or b.readable in known
        return sorted(groups.values(), key=lambda b: (-b.count, b.first_seed))

    # -- counts -------------------------------------------------------------------------------------
    def counts(self) -> dict[str, Any]:
        """Totals over every recorded seed (what ``status`` and the progress display show)."""
        verdicts = {
            (r[0] or r[1]): r[2]
            for r in self.db.execute(
                "SELECT verdict, status, COUNT(*) FROM programs GROUP BY verdict, status"
            )
        }
        agg = self.db.execute(
            "SELECT COUNT(*), SUM(status = 'checked'), SUM(category = 'bug'),"
            " SUM(category = 'fault'), COALESCE(SUM(worker_deaths), 0),"
            " COALESCE(SUM(work_s), 0), COALESCE(SUM(wall_s), 0), SUM(status = 'error'),"
            " MAX(recorded) FROM programs"
        ).fetchone()
        placeholders = ",".join("?" * len(VALID_VERDICTS))
        valid = self.db.execute(
            f"SELECT COUNT(*) FROM programs WHERE category = 'bug' OR verdict IN ({placeholders})",
            tuple(VALID_VERDICTS),
        ).fetchone()[0]
        return {
            "programs": agg[0],
            "checked": agg[1] or 0,
            "valid": valid,
            "findings": agg[2] or 0,
            "faults": agg[3] or 0,
            "worker_deaths": agg[4],
            "work_s": round(agg[5], 3),
            "wall_s": round(agg[6], 3),
            "errors": agg[7] or 0,
            "last_recorded": agg[8],
            "verdicts": verdicts,
        }

    def phase_means(self) -> dict[str, float]:
        """Mean seconds per phase over checked programs, and per compile stage
        (``compile dynamo trace``, ``compile c++ compile``, ...): where the time goes."""
        sums: dict[str, float] = {}
        n = 0
        for (text,) in self.db.execute("SELECT timings FROM programs WHERE status = 'checked'"):
            n += 1
            for k, v in json.loads(text or "{}").items():
                if isinstance(v, int | float):
                    sums[k] = sums.get(k, 0.0) + v
        return {k: round(v / n, 4) for k, v in sums.items()} if n else {}

    def nodes(self) -> list[dict[str, Any]]:
        """Per Ray node (``None``: this machine): programs checked and their time span."""
        rows = self.db.execute(
            "SELECT node, COUNT(*), MIN(recorded), MAX(recorded) FROM programs"
            " WHERE status = 'checked' GROUP BY node ORDER BY node"
        ).fetchall()
        out = []
        for node, n, first, last in rows:
            span = (last - first) / 60 if last and first and last > first else 0.0
            out.append(
                {"node": node, "programs": n, "per_min": round(n / span, 2) if span else 0.0}
            )
        return out

    def families(self) -> list[dict[str, Any]]:
        """Per generator family: programs, checked, valid, compiler-bug findings, distinct bugs
        (distinct signatures of the bugs they belong to) and compile seconds."""
        placeholders = ",".join("?" * len(VALID_VERDICTS))
        rows = self.db.execute(
            "SELECT generator, COUNT(*), SUM(status = 'checked'),"
            f" SUM(category = 'bug' OR verdict IN ({placeholders})), SUM(category = 'bug'),"
            " COUNT(DISTINCT CASE WHEN category = 'bug' THEN signature END),"
            " COALESCE(SUM(wall_s), 0)"
            " FROM programs GROUP BY generator ORDER BY generator",
            tuple(VALID_VERDICTS),
        ).fetchall()
        out = []
        for gen, n, checked, valid, findings, sigs, wall in rows:
            bugs = {
                self._bug_of(s)
                for (s,) in self.db.execute(
                    "SELECT DISTINCT signature FROM programs WHERE generator = ? AND category = 'bug'",
                    (gen,),
                )
                if s
            }
            out.append(
                {
                    "family": gen,
                    "programs": n,
                    "checked": checked or 0,
                    "valid": valid or 0,
                    "findings": findings or 0,
                    "signatures": sigs or 0,
                    "bugs": len(bugs),
                    "wall_s": round(wall, 1),
                }
            )
        return out


def liveness(params: dict[str, Any]) -> str:
    """``running``, or the state it ended in; ``killed`` when it says running but is not."""
    state = params.get("state", "unknown")
    if state != "running":
        return state
    pid, beat = params.get("pid"), float(params.get("heartbeat") or 0)
    alive = False
    if pid:
        try:
            os.kill(int(pid), 0)
            alive = True
        except (ProcessLookupError, PermissionError, ValueError):
            alive = False
    return "running" if alive and time.time() - beat < 6 * HEARTBEAT_S else "killed"


# -- the one writer ------------------------------------------------------------------------------


# -- a damaged database ---------------------------------------------------------------------------
#: Every table, in the order a salvage copies them.
TABLES = ("campaign", "options", "programs", "aliases", "bug_notes")


def integrity_problem(path: str | Path) -> str | None:
    """None when the database at ``path`` reads whole (integrity check, every table counts);
    else SQLite's own words for the first problem."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            result = db.execute("PRAGMA integrity_check").fetchall()
            for table in TABLES:
                db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        return str(e)
    bad = [r[0] for r in result if r[0] != "ok"]
    return bad[0] if bad else None


def copy_readable_rows(
    damaged: str | Path, new: Store, table: str, hint: range | None = None
) -> tuple[int, int]:
    """Rows of ``table`` in the ``damaged`` database that still read, copied into ``new`` by
    rowid one at a time past damaged pages (over ``hint`` when the table's own bounds do not
    read): ``(kept, unreadable)``."""
    try:
        old = sqlite3.connect(f"file:{damaged}?mode=ro", uri=True)
    except sqlite3.DatabaseError:
        return 0, 0
    try:
        return _copy_table(old, new.db, table, hint)
    finally:
        old.close()


def _copy_table(
    old: sqlite3.Connection, new: sqlite3.Connection, table: str, hint: range | None
) -> tuple[int, int]:
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
