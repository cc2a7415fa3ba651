"""The crash-safe runner behind bench/validity.py."""

from __future__ import annotations

from torchsmith.generate.graph import GenOptions
from torchsmith.generate.validate import validate_seeds


def test_runner_reports_each_seed():
    recs = validate_seeds([3, 4], GenOptions(max_nodes=4), timeout=60)
    assert [r["seed"] for r in recs] == [3, 4]
    assert all(r["status"] == "ok" and r["ops"] for r in recs)


def test_a_dying_child_is_recorded_and_the_rest_still_runs(monkeypatch):
    monkeypatch.setenv("TORCHSMITH_VALIDATE_DIE_AT", "11")
    recs = validate_seeds([10, 11, 12], GenOptions(max_nodes=3), timeout=60)
    assert [r["status"] for r in recs] == ["ok", "crash", "ok"]
    assert "SIGSEGV" in recs[1]["error"] and "seed 11" in recs[1]["error"]
