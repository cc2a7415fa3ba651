"""What a campaign reports about itself, read from ``campaign.db`` alone.

:func:`summarize` is the one summary (schema 1) that ``status``, ``fuzz --json``, the campaign
page and ``regress`` read; it opens nothing but the store, so readers never import the loop.
"""

from __future__ import annotations

from typing import Any

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.store import Store, liveness
from torchsmith.finding import FINDINGS


def summarize(store: Store, known: set[str] | None = None) -> dict[str, Any]:
    """Everything ``status`` and ``fuzz --json`` report about a campaign (schema 1)."""
    params = store.params()
    counts = store.counts()
    all_bugs = store.bugs(known)
    elapsed = float(params.get("elapsed_s") or 0.0)
    bugs = [b.to_dict() for b in all_bugs if b.category == "bug"]
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
        "known_bugs": sum(1 for b in bugs if b["known"]),
        "bug_list": bugs,
        "fault_list": [b.to_dict() for b in all_bugs if b.category == "fault"],
        "families": store.families(),
        "phase_means": store.phase_means(),
        "nodes": store.nodes(),
        "findings_dir": str(store.path.parent / FINDINGS),
    }
