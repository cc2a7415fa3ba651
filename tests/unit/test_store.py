"""The campaign store and the campaign's bookkeeping, without workers (fast)."""

import json
import sqlite3
from pathlib import Path

import pytest

from torchsmith.campaign.config import CampaignConfig, CampaignError
from torchsmith.campaign.loop import Campaign, SeedSource
from torchsmith.campaign.store import DB_NAME, SCHEMA, ProgramRow, Store, liveness
from torchsmith.campaign.summary import summarize
from torchsmith.campaign.writer import Writer
from torchsmith.options import CheckOptions, parse_duration


def _bug(seed: int, sig: str = "sig-a", lines: int = 30, finding: str | None = None, **kw):
    return ProgramRow(
        seed=seed, generator="graph", name=f"gen_{seed}", digest=f"d{seed}", verdict="crash",
        phase="compiled", stage="inductor", symptom="exception", category="bug", signature=sig,
        readable=f"readable {sig}", finding=finding or f"crash-inductor-d{seed}", lines=lines,
        ops=3, timings={"compiled": 1.5}, work_s=1.6, wall_s=2.0, options={"backend": "inductor"},
        **kw,
    )  # fmt: skip


def test_schema_wal_and_read_only_access(tmp_path):
    with Store(tmp_path) as s:
        assert s.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA
        tables = {r[0] for r in s.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"campaign", "programs", "options", "aliases", "bug_notes"} <= tables
        s.set_params(seed=5, options={"backend": "inductor"}, count=None)
        s.record(_bug(5))
        # a reader sees committed rows while the writer's connection stays open
        with Store(tmp_path, readonly=True) as r:
            assert r.params() == {"seed": 5, "options": {"backend": "inductor"}, "count": None}
            assert r.recorded_seeds() == {5}
            with pytest.raises(sqlite3.OperationalError):
                r.db.execute("DELETE FROM programs")
    with pytest.raises(FileNotFoundError):
        Store(tmp_path / "nothing", readonly=True)


def test_a_seed_is_recorded_once_and_rows_round_trip(tmp_path):
    with Store(tmp_path / DB_NAME) as s:
        assert s.record(_bug(1)).inserted
        again = s.record(_bug(1, sig="sig-other"))
        assert not again.inserted
        s.record(ProgramRow(seed=2, generator="graph", status="no-program"))
        s.record(ProgramRow(seed=3, generator="graph", verdict="invalid", phase="eager",
                            options={"backend": "inductor"}))  # fmt: skip
        rows = s.rows()
        assert [r["seed"] for r in rows] == [1, 2, 3]
        assert rows[0]["signature"] == "sig-a" and rows[0]["timings"] == {"compiled": 1.5}
        assert s.options_of(rows[0]["options_id"]) == {"backend": "inductor"}
        assert rows[0]["options_id"] == rows[2]["options_id"]  # options stored once
        c = s.counts()
        assert c["programs"] == 3 and c["checked"] == 2 and c["valid"] == 1
        assert c["findings"] == 1 and c["verdicts"]["no-program"] == 1


def test_bugs_group_by_signature_with_count_and_smallest_example(tmp_path):
    with Store(tmp_path) as s:
        assert s.record(_bug(1, lines=40)).new_bug
        assert not s.record(_bug(2, lines=25)).new_bug
        assert s.record(_bug(3, sig="sig-b", known=True)).new_bug
        s.record(_bug(4, lines=25, finding="crash-inductor-zzz"))
        (a, b) = s.bugs()
        assert (a.signature, a.count, a.seeds, a.smallest) == (
            "sig-a",
            3,
            [1, 2, 4],
            "crash-inductor-d2",
        )
        assert (b.signature, b.count, b.known) == ("sig-b", 1, True)
        assert not a.known
        assert [x.known for x in s.bugs(known={"readable sig-a"})] == [True, False]


def test_refining_signatures_merges_bugs_and_new_rows_follow(tmp_path):
    with Store(tmp_path) as s:
        s.record(_bug(1, sig="sig-a"))
        s.record(_bug(2, sig="sig-b"))
        s.set_bug_signature("sig-a", "sig-r", "wrong-value|inductor|relu", "reduced-1")
        s.set_bug_signature("sig-b", "sig-r", "wrong-value|inductor|relu")
        (bug,) = s.bugs()
        assert (bug.signature, bug.count, bug.readable) == ("sig-r", 2, "wrong-value|inductor|relu")
        assert bug.reduced_finding == "reduced-1" and sorted(bug.raw_signatures) == [
            "sig-a",
            "sig-b",
        ]
        ack = s.record(_bug(3, sig="sig-a"))
        assert ack.bug == "sig-r" and not ack.new_bug
        s.set_bug_signature("sig-r", "sig-z")  # refining again carries every alias along
        assert [(b.signature, b.count) for b in s.bugs()] == [("sig-z", 3)]


def test_seed_source_skips_recorded_seeds_and_stops_at_count():
    src = SeedSource(10, 5, recorded={11, 13})
    assert [src.next() for _ in range(4)] == [10, 12, 14, None]
    open_ended = SeedSource(0, None, recorded={0})
    assert [open_ended.next() for _ in range(3)] == [1, 2, 3]
    open_ended.stop()
    assert open_ended.next() is None


def test_durations():
    assert parse_duration("90") == 90 and parse_duration("10m") == 600
    assert parse_duration("1h30m") == 5400 and parse_duration("1d") == 86400
    with pytest.raises(ValueError):
        parse_duration("soon")


def test_config_round_trips_through_the_store(tmp_path):
    cfg = CampaignConfig(
        out=tmp_path, seed=7, count=10, gen_options={"dtypes": ["float32"]},
        options=CheckOptions(timeout=20, config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "runtime_error"}),
    )  # fmt: skip
    with Store(tmp_path) as s:
        s.set_params(**cfg.to_params())
        back = CampaignConfig.from_params(tmp_path, s.params())
    assert back == cfg


def test_resume_prepare_drops_unrecorded_finding_folders_and_keeps_recorded_ones(tmp_path):
    cfg = CampaignConfig(out=tmp_path, count=4)
    with Store(tmp_path) as s:
        s.set_params(**cfg.to_params(), state="running", pid=None, heartbeat=0)
        s.record(_bug(0, finding="crash-inductor-d0"))
    root = tmp_path / "findings"
    for name, seed in (("crash-inductor-d0", 0), ("crash-inductor-d1", 1)):
        (root / name).mkdir(parents=True)
        (root / name / "meta.json").write_text(json.dumps({"seed": seed, "id": name}))
        (root / name / "program.py").write_text("x = 1\n")
    (root / "half-written").mkdir()  # killed before meta.json
    (root / "crash-inductor-d0" / "repro.py.tmp").write_text("partial")
    camp = Campaign(cfg, resume=True)
    with Store(tmp_path) as s:
        assert camp._prepare(s) == {0}
        assert s.params()["sessions"] == 1 and s.params()["state"] == "running"
    assert sorted(p.name for p in root.iterdir()) == ["crash-inductor-d0"]
    assert not (root / "crash-inductor-d0" / "repro.py.tmp").exists()
    with Store(tmp_path) as s, pytest.raises(Exception, match="already holds a campaign"):
        Campaign(cfg)._prepare(s)


def test_writer_thread_serializes_calls_and_beats(tmp_path):
    w = Writer(tmp_path / DB_NAME, elapsed=lambda: 12.5)
    try:
        acks = [w.call(Store.record, _bug(i, sig=f"sig-{i % 2}")) for i in range(4)]
        assert [a.new_bug for a in acks] == [True, True, False, False]
        with pytest.raises(sqlite3.Error):
            w.call(lambda s: s.db.execute("SELECT * FROM nope"))
        w.call(lambda s: s.set_params(state="running", pid=None))
    finally:
        w.close()
    with Store(tmp_path, readonly=True) as s:
        p = s.params()
        assert p["elapsed_s"] == 12.5 and p["heartbeat"] > 0
        assert liveness(p) == "killed"  # says running, but no process behind it
        summary = summarize(s)
    assert summary["programs"] == 4 and summary["bugs"] == 2 and summary["state"] == "killed"
    assert [b["count"] for b in summary["bug_list"]] == [2, 2]


def _campaign_db(tmp_path, n=300):
    cfg = CampaignConfig(out=tmp_path, count=n)
    with Store(tmp_path) as s:
        s.set_params(**cfg.to_params(), state="stopped")
        for seed in range(n):
            s.record(ProgramRow(seed=seed, generator="graph", verdict="pass", reason="x" * 200))
    return cfg


def test_a_damaged_store_is_said_in_one_line_and_repaired_keeping_what_reads(tmp_path):
    from torchsmith.campaign.repair import repair_store, store_damage

    cfg = _campaign_db(tmp_path)
    assert store_damage(tmp_path) is None
    assert repair_store(tmp_path) == {"repaired": False, "intact": True}
    db = tmp_path / DB_NAME
    with open(db, "r+b") as f:  # scribble over some pages in the middle of the file
        f.seek(db.stat().st_size // 2)
        f.write(b"\xff" * 4096)
    damage = store_damage(tmp_path)
    assert damage is not None and DB_NAME in damage
    with pytest.raises(CampaignError, match="--repair"):
        CampaignConfig.resumed(tmp_path)
    done = repair_store(tmp_path)
    assert done["repaired"] and Path(done["moved_to"]).exists()
    assert store_damage(tmp_path) is None
    with Store(tmp_path, readonly=True) as s:
        seeds = s.recorded_seeds()
        assert s.params()["count"] == cfg.count  # the campaign can go on
    assert 0 < len(seeds) < 300 and done["kept"]["programs"] == len(seeds)
    assert CampaignConfig.resumed(tmp_path).count == 300


def test_a_truncated_store_is_damage_too(tmp_path):
    from torchsmith.campaign.repair import repair_store, store_damage

    _campaign_db(tmp_path, 50)
    db = tmp_path / DB_NAME
    db.write_bytes(db.read_bytes()[:1000])
    assert store_damage(tmp_path) is not None
    done = repair_store(tmp_path)
    assert done["repaired"] and store_damage(tmp_path) is None
