"""What people see of a campaign: the live line, events as they happen, the final tables.

On a terminal (stderr is a TTY) a rich ``Live`` panel refreshes twice a second and new bugs are
printed above it; elsewhere (CI logs, files, pipes) one plain line every ``interval`` seconds and
one line per event, so logs stay readable. :func:`print_summary` renders a campaign summary
(:func:`torchsmith.campaign.summary.summarize`) for both ``fuzz`` and ``status``.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text


def _duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _budget(stats: dict[str, Any]) -> str:
    parts = []
    if stats.get("count"):
        parts.append(f"{stats['programs']}/{stats['count']} programs")
    if stats.get("time_budget"):
        parts.append(f"{_duration(stats['time_budget'] - stats['elapsed_s'])} left")
    return ", ".join(parts)


def stats_line(stats: dict[str, Any]) -> str:
    """One line: elapsed, programs and rate, valid %, findings, bugs, faults, restarts."""
    known = f" ({stats['known_bugs']} known)" if stats.get("known_bugs") else ""
    budget = _budget(stats)
    return (
        f"[{_duration(stats['elapsed_s'])}] {stats['programs']} programs"
        f" ({stats['per_min']:.1f}/min, {stats['jobs']} jobs), valid {stats['valid_pct']:.1f}%,"
        f" findings {stats['findings']}, bugs {stats['bugs']}{known}, faults {stats['faults']},"
        f" worker restarts {stats['worker_restarts']}"
        + (f", errors {stats['errors']}" if stats.get("errors") else "")
        + (f" | {budget}" if budget else "")
    )


def _panel(stats: dict[str, Any]) -> Table:
    t = Table.grid(padding=(0, 2))
    for _ in range(4):
        t.add_column()
    known = f" ({stats['known_bugs']} known)" if stats.get("known_bugs") else ""

    def alarm(text: str, n: int) -> Text:
        return Text(text, style="bold red" if n else "")

    cells = [
        ("elapsed", _duration(stats["elapsed_s"])),
        ("programs", f"{stats['programs']}  ({stats['per_min']:.1f}/min, {stats['jobs']} jobs)"),
        ("valid", f"{stats['valid_pct']:.1f}%"),
        ("findings", alarm(f"{stats['findings']}", stats["findings"])),
        ("bugs", alarm(f"{stats['bugs']}{known}", stats["bugs"])),
        ("faults", f"{stats['faults']}"),
        (
            "restarts",
            f"{stats['worker_restarts']} (+{stats.get('retirements', 0)} retired,"
            f" {stats.get('cache_clears', 0)} for the Inductor cache cap)",
        ),
        ("budget", _budget(stats) or "until Ctrl-C"),
    ]
    for (k1, v1), (k2, v2) in zip(cells[::2], cells[1::2]):
        t.add_row(Text(k1, style="dim"), v1, Text(k2, style="dim"), v2)
    return t


class LiveProgress:
    """The rich display for a terminal."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._live: Live | None = None

    def __enter__(self) -> LiveProgress:
        self._live = Live(
            Text("starting workers ..."), console=self.console, refresh_per_second=2
        ).__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def update(self, stats: dict[str, Any]) -> None:
        if self._live is not None:
            self._live.update(Group(Text("torchsmith fuzz", style="bold"), _panel(stats)))

    def event(self, kind: str, text: str) -> None:
        style = {"bug": "bold red", "fault": "yellow", "error": "red"}.get(kind, "")
        self.console.print(Text(text, style=style))


class PlainProgress:
    """Periodic plain lines (and one line per event) for logs and pipes."""

    def __init__(self, stream: TextIO | None = None, interval: float = 30.0) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self._last = 0.0
        self._lock = threading.Lock()
        self._stats: dict[str, Any] | None = None

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stats is not None:
            self._write(stats_line(self._stats))

    def _write(self, line: str) -> None:
        with self._lock:
            print(f"torchsmith: {line}", file=self.stream, flush=True)

    def update(self, stats: dict[str, Any]) -> None:
        self._stats = stats
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._write(stats_line(stats))

    def event(self, kind: str, text: str) -> None:
        self._write(text)


def summary_console(stderr: bool = False) -> Console:
    """A console for the final tables: the terminal's width, or wide when piped (no folding)."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, soft_wrap=True, width=None if stream.isatty() else 160)


def make_progress(interval: float = 30.0, quiet: bool = False) -> LiveProgress | PlainProgress:
    """Live on a terminal, plain lines otherwise (and with ``quiet``, e.g. ``--json``)."""
    if sys.stderr.isatty() and not quiet:
        return LiveProgress()
    return PlainProgress(interval=interval)


# -- final tables -----------------------------------------------------------------------------
def _bug_table(title: str, bugs: list[dict[str, Any]], findings_dir: str) -> Table:
    t = Table(title=title, title_justify="left")
    t.add_column("signature", no_wrap=True)
    t.add_column("count", justify="right")
    t.add_column("verdict")
    t.add_column("stage")
    t.add_column("smallest example", overflow="fold")
    for b in bugs:
        example = f"{findings_dir}/{b['smallest']}" if b.get("smallest") else "-"
        if b.get("reduced_finding"):
            example += f"\nreduced: {findings_dir}/{b['reduced_finding']}"
        verdicts = ", ".join(v for v in b["verdicts"] if v)
        t.add_row(b["signature"], str(b["count"]), verdicts, b.get("stage") or "-", example)
    return t


def _print_bugs(console: Console, title: str, bugs: list[dict[str, Any]], fd: str) -> None:
    console.print(_bug_table(title, bugs, fd))
    for b in bugs:  # the readable signatures, whole, below the table
        known = f"  (known: {b['known_as']})" if b.get("known_as") else ""
        if b.get("same_as"):
            known += f"  (same cause as {b['same_as']})"
        if b.get("path_wide"):
            known += f"\n    {b['path_wide']}"
        console.print(
            f"  {b['signature']}  {b.get('readable', '')}{known}", markup=False, highlight=False
        )


#: Causes by label, in the order the summary shows them: new ones lead.
LABELS = {
    "new": "new bugs (one row a reduced signature; same causes marked)",
    "known": "known bugs (public issues, or earlier finds)",
    "lesser": "lesser bugs (precision loss, strides only)",
    "path-wide": "path-wide failures (a trivial program on the same path fails the same way:"
    " this machine's setup, or the whole path; not bugs of these programs)",
}


def _causes(s: dict[str, Any]) -> str:
    """``3 causes (1 new, 1 known, 1 lesser) from 5 signatures``."""
    labels = s.get("labels") or {}
    parts = ", ".join(f"{labels.get(k, 0)} {k}" for k in LABELS)
    causes = s.get("causes", s["bugs"])
    return f"{causes} causes ({parts}) from {s.get('signatures', s['bugs'])} signatures"


def print_summary(summary: dict[str, Any], console: Console) -> None:
    """The summary of a campaign: the totals, then bugs, known bugs and faults by signature."""
    s = summary
    console.print(
        f"[bold]{s['campaign']}[/bold]: {s['state']}, {s['programs']} programs in"
        f" {_duration(s['elapsed_s'])} ({s['programs_per_min']:.1f}/min), valid"
        f" {s['valid_pct']:.1f}%, {s['findings']} findings, {_causes(s)},"
        f" {s['faults']} faults outside torch.compile,"
        f" {s['worker_deaths']} worker restarts, {s['errors']} errors",
        highlight=False,
    )
    verdicts = ", ".join(f"{k} {v}" for k, v in sorted(s["verdicts"].items(), key=str))
    if verdicts:
        console.print(f"verdicts: {verdicts}", highlight=False, markup=False)
    means = s.get("phase_means") or {}
    if means:
        phases = ", ".join(f"{k} {v:.2f}" for k, v in means.items() if " " not in k)
        stages = ", ".join(f"{k[8:]} {v:.2f}" for k, v in means.items() if k.startswith("compile "))
        console.print(f"mean seconds per program: {phases}", highlight=False, markup=False)
        if stages:
            console.print(f"  of which compile stages: {stages}", highlight=False, markup=False)
    nodes = [n for n in s.get("nodes") or [] if n["node"]]
    if nodes:
        per = ", ".join(f"{n['node'][:12]} {n['programs']} ({n['per_min']:.1f}/min)" for n in nodes)
        console.print(f"Ray nodes: {per}", highlight=False, markup=False)
    families = s.get("families") or []
    if len(families) > 1 or (families and families[0]["family"] != "graph"):
        t = Table(title="per family", title_justify="left", box=None)
        for col in ("family", "programs", "valid %", "findings", "distinct bugs", "bugs/1000"):
            t.add_column(col, justify="left" if col == "family" else "right")
        for f in families:
            valid = 100.0 * f["valid"] / f["checked"] if f["checked"] else 0.0
            rate = 1000.0 * f["bugs"] / f["programs"] if f["programs"] else 0.0
            t.add_row(
                f["family"],
                str(f["programs"]),
                f"{valid:.1f}",
                str(f["findings"]),
                str(f["bugs"]),
                f"{rate:.1f}",
            )
        console.print(t)
    cov = s.get("coverage")
    if cov:
        per = ", ".join(f"{k} {v}" for k, v in cov["new_lines"].items())
        console.print(
            f"compiler lines run: {cov['lines']} (from {cov['samples']} sampled programs;"
            f" {cov['baseline']} in the first; new lines after it by family: {per})",
            highlight=False,
            markup=False,
        )
    for family, reason in (s.get("families_left_out") or {}).items():
        console.print(f"family {family} left out: {reason}", highlight=False, markup=False)
    fd = s["findings_dir"]
    groups = {lab: [b for b in s["bug_list"] if b.get("label", "new") == lab] for lab in LABELS}
    for lab, title in LABELS.items():
        if groups[lab]:
            _print_bugs(console, title, groups[lab], fd)
    if s["fault_list"]:
        _print_bugs(console, "faults (died or hung outside torch.compile)", s["fault_list"], fd)
    if not s["bug_list"] and not s["fault_list"]:
        console.print("no findings", style="green")
