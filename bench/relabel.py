"""Labels a campaign's reduced findings again, with today's signatures and known table.

A campaign stores each finding's signature as it was computed then; after the signature rules or
the table change (a new ``py:`` construct, a newly signed find), its summary still labels with
the old signatures. This signs every reduced finding of a campaign folder again (its program
and stored verdict: nothing runs) and labels it against the shipped table, one line per finding
and the counts: what triage by the tool would say of that campaign today.

    python bench/relabel.py /tmp/py12
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from torchsmith import dedup  # noqa: E402
from torchsmith.finding import read_finding  # noqa: E402
from torchsmith.known import KnownTable, label  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign", type=Path, help="A campaign folder (its findings/).")
    args = ap.parse_args(argv)
    findings = args.campaign / "findings"
    if not findings.is_dir():
        print(f"relabel: {findings}: no such folder (not a campaign folder?)", file=sys.stderr)
        return 2
    table = KnownTable.default()
    counts: Counter[str] = Counter()
    causes: dict[str, str] = {}
    for folder in sorted(findings.iterdir()):
        if not (folder / "meta.json").exists():
            continue
        try:
            finding = read_finding(folder)
            if not finding.meta.get("reduced_from"):
                continue
            readable = dedup.readable_signature(finding.result, finding.program)
        except Exception as e:  # a damaged folder: said, skipped, the rest still labelled
            print(f"{folder.name:40s} unreadable: {type(e).__name__}: {e}", file=sys.stderr)
            counts["unreadable"] += 1
            continue
        lab, entry = label(readable, table)
        what = entry.describe() if entry else ""
        print(f"{folder.name:40s} {lab.value:6s} {what:60s} {readable[:110]}")
        counts[lab.value] += 1
        causes.setdefault(readable, lab.value)
    kinds = Counter(causes.values())
    print(
        f"{sum(counts.values())} findings: {dict(counts)}; {len(causes)} signatures: {dict(kinds)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
