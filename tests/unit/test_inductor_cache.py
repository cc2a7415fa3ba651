"""The per-slot Inductor cache folder and its cap (torchsmith.execute.inductor_cache)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from torchsmith.execute import inductor_cache as ic
from torchsmith.execute.pool import Slot, WorkerPool
from torchsmith.execute.protocol import worker_env


def fill(folder: Path, sizes: list[int]) -> None:
    for i, n in enumerate(sizes):
        sub = folder / f"d{i % 3}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{i}.so").write_bytes(b"x" * n)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 5000), max_size=12))
def test_folder_bytes_adds_up_every_file_and_skips_links(tmp_path_factory, sizes):
    folder = tmp_path_factory.mktemp("c")
    fill(folder, sizes)
    outside = tmp_path_factory.mktemp("o") / "big"
    outside.write_bytes(b"y" * 7777)
    (folder / "link").symlink_to(outside)  # a link is not the folder's own bytes
    assert ic.folder_bytes(folder) == sum(sizes)


def test_a_missing_folder_weighs_nothing(tmp_path):
    assert ic.folder_bytes(tmp_path / "none") == 0


def test_the_slot_gets_its_own_folder_unless_the_user_chose_one_or_the_cap_is_0(tmp_path):
    env, folder = ic.slot_env({"A": "1"}, tmp_path / "slot-0", 100)
    assert folder == tmp_path / "slot-0" / ic.FOLDER and folder.is_dir()
    assert env == {"A": "1", ic.CACHE_VAR: str(folder), ic.TRITON_VAR: str(folder / "triton")}
    own_triton = ic.slot_env({ic.TRITON_VAR: "/t"}, tmp_path / "slot-1", 100)[0]
    assert own_triton[ic.TRITON_VAR] == "/t"  # the user's Triton folder is theirs
    mine = {ic.CACHE_VAR: "/data/cache"}
    assert ic.slot_env(mine, tmp_path / "s1", 100) == (mine, None)
    rel = tmp_path.relative_to(tmp_path.anchor)  # a campaign given a relative --out
    cwd = os.getcwd()
    os.chdir(tmp_path.anchor)
    try:
        _, folder = ic.slot_env({}, rel / "slot-9", 100)
    finally:
        os.chdir(cwd)
    assert folder.is_absolute() and folder == tmp_path / "slot-9" / ic.FOLDER
    assert ic.slot_env({"A": "1"}, tmp_path / "s2", 0) == ({"A": "1"}, None)


def test_torchs_own_default_in_the_environment_is_not_a_users_choice(tmp_path):
    # Inductor writes its default folder into os.environ the first time a process compiles
    default = ic.default_folder()
    assert (
        default.startswith(os.path.abspath(tempfile.gettempdir())) and "torchinductor_" in default
    )
    env, folder = ic.slot_env({ic.CACHE_VAR: default}, tmp_path / "slot-0", 100)
    assert folder == tmp_path / "slot-0" / ic.FOLDER and env[ic.CACHE_VAR] == str(folder)
    assert ic.user_folder({ic.CACHE_VAR: default}) is None
    assert ic.user_folder({ic.CACHE_VAR: "/data/cache"}) == "/data/cache"
    assert ic.user_folder({}) is None


def test_past_the_cap_the_folder_is_emptied_and_measured_only_every_so_often(tmp_path):
    folder = tmp_path / "c"
    fill(folder, [600_000, 600_000])
    cache = ic.BoundedCache(folder, cap_mb=1.0)
    assert cache.over_cap(now=1000.0) and cache.last_mb > 1.0
    assert not cache.over_cap(now=1000.0 + ic.CHECK_EVERY_S / 2)  # not measured again yet
    cache.clear()
    assert folder.is_dir() and ic.folder_bytes(folder) == 0 and cache.clears == 1
    assert not cache.over_cap(now=1000.0 + 2 * ic.CHECK_EVERY_S)


def test_a_slot_retires_its_worker_before_emptying_its_cache(tmp_path):
    env = {k: v for k, v in worker_env(2).items() if k != ic.CACHE_VAR}  # no folder of the user's
    pool = WorkerPool(2, 1024, tmp_path / "workers", env=env, cache_mb=3.0)  # 1 MiB a share
    slot: Slot = pool.slots[0]
    assert slot.cache is not None and slot.cache.cap_mb == 1.0
    assert slot.worker.env[ic.CACHE_VAR] == str(tmp_path / "workers" / "slot-0" / ic.FOLDER)
    assert pool.slots[1].worker.env[ic.CACHE_VAR] != slot.worker.env[ic.CACHE_VAR]
    fill(slot.cache.folder, [2_000_000])
    slot.worker.start()
    try:
        pid = slot.worker.proc.pid
        assert slot.after_program() is True  # retired: the process is gone, the folder empty
        assert not slot.worker.alive and slot.retirements == 1 and pool.cache_clears == 1
        assert ic.folder_bytes(slot.cache.folder) == 0
        slot.worker.start()
        assert slot.worker.proc.pid != pid
        assert slot.after_program() is False  # under the cap (and not measured again yet)
    finally:
        pool.close()


def test_a_slot_whose_worker_is_dead_empties_a_full_cache_without_a_retirement(tmp_path):
    env = {k: v for k, v in worker_env(1).items() if k != ic.CACHE_VAR}
    pool = WorkerPool(1, 1024, tmp_path / "workers", env=env, cache_mb=2.0)  # 1 MiB a share
    slot = pool.slots[0]
    fill(slot.cache.folder, [2_000_000])
    assert slot.after_program() is False and not slot.worker.alive
    assert ic.folder_bytes(slot.cache.folder) == 0 and slot.retirements == 0
