"""What a campaign reports about itself, read from ``campaign.db`` alone.

:func:`summarize` is the one summary (schema 1) that ``status``, ``fuzz --json``, the campaign
page and ``regress`` read; it opens nothing but the store, so readers never import the loop.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.steer import read_curve
from torchsmith.campaign.store import Bug, Store, liveness
from torchsmith.finding import FINDINGS
from torchsmith.known import KnownTable, Label, label, same_cause


def label_bugs(bugs: list[Bug], table: KnownTable) -> list[dict[str, Any]]:
    """Each bug (a reduced signature) as a dict with its label (``new``, ``known``,
    ``lesser``, ``path-wide``: the path canary failed the same way, ``path_wide`` says how)
    and the known entry it matches, new ones first (then known, lesser, path-wide; biggest
    first within each). ``same_as`` names an earlier row that is the same cause (the
    same known entry, or :func:`~torchsmith.known.same_cause` of the two signatures: two
    bodies of one ``nested_compile_region`` bug that reduce to ``add`` and ``mul``); a row
    with ``same_as`` is not counted as a cause of its own."""
    out = []
    for b in bugs:
        lab, entry = label(b.readable, table, b.signature, b.passes)
        if b.path_wide:
            lab, entry = Label.PATH_WIDE, None
        d = b.to_dict()
        d["label"] = lab.value
        d["known"] = b.known or lab is Label.KNOWN
        d["known_as"] = entry.describe() if entry is not None else None
        d["known_url"] = entry.url if entry is not None else None
        d["findings"] = b.count
        out.append(d)
    order = {lab.value: i for i, lab in enumerate(Label)}
    out.sort(key=lambda d: (order[d["label"]], -d["count"], d["first_seed"]))
    heads: list[dict[str, Any]] = []
    for d in out:
        d["same_as"] = next((h["signature"] for h in heads if _one_cause(h, d)), None)
        if d["same_as"] is None:
            heads.append(d)
    return out


def _one_cause(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a["label"] != b["label"]:
        return False
    if a["known_as"] not in (None, "--known") and a["known_as"] == b["known_as"]:
        return True
    return same_cause(a["readable"], b["readable"])


def summarize(
    store: Store, known: set[str] | None = None, table: KnownTable | None = None
) -> dict[str, Any]:
    """Everything ``status`` and ``fuzz --json`` report about a campaign (schema 1).

    ``bug_list`` holds causes: findings grouped by their (reduced, refined) signature, each
    labelled against ``table`` (default: the shipped table) plus the ``known`` signatures, new
    ones first. ``signatures`` counts the raw signatures behind them, ``causes`` the causes.
    """
    params = store.params()
    counts = store.counts()
    all_bugs = store.bugs(known)
    elapsed = float(params.get("elapsed_s") or 0.0)
    table = table if table is not None else KnownTable.default()
    table.add_signatures(known or ())
    bugs = label_bugs([b for b in all_bugs if b.category == "bug"], table)
    causes = [b for b in bugs if b["same_as"] is None]
    labels = Counter(b["label"] for b in causes)
    return {
        "schema": 1,
        "campaign": str(store.path.parent),
        "state": liveness(params),
        "params": {k: params.get(k) for k in CampaignConfig.__dataclass_fields__ if k in params},
        "elapsed_s": round(elapsed, 1),
        "programs_per_min": round(counts["programs"] / (elapsed / 60), 2) if elapsed else 0.0,
        "valid_pct": round(100.0 * counts["valid"] / counts["checked"], 1)
        if counts["checked"]
        else 0.0,
        **counts,
        "bugs": len(bugs),
        "causes": len(causes),
        "signatures": len({s for b in bugs for s in b["raw_signatures"]}),
        "labels": {k.value: labels.get(k.value, 0) for k in Label},
        "known_bugs": sum(1 for b in bugs if b["known"]),
        "bug_list": bugs,
        "fault_list": [b.to_dict() for b in all_bugs if b.category == "fault"],
        "families": store.families(),
        "families_left_out": params.get("families_left_out") or {},
        "phase_means": store.phase_means(),
        "nodes": store.nodes(),
        "findings_dir": str(store.path.parent / FINDINGS),
        "coverage": coverage_summary(read_curve(store.path.parent)),
    }


def coverage_summary(curve: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Compiler lines the sampled programs ran (``fuzz --coverage-every``), the first sample's
    (the baseline, credited to no family) and the new lines each family reached after it; None
    when the campaign measured none."""
    if not curve:
        return None
    families: Counter[str] = Counter()
    samples: Counter[str] = Counter()
    for row in curve[1:]:  # the first sample is the baseline (campaign/steer.py)
        families[row["family"]] += int(row["new"])
        samples[row["family"]] += 1
    return {
        "lines": curve[-1]["total"],
        "baseline": curve[0]["total"],
        "samples": len(curve),
        "new_lines": dict(families.most_common()),
        "samples_by_family": dict(sorted(samples.items())),
    }
