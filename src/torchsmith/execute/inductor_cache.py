"""The Inductor cache a campaign's workers write: one folder per slot, bounded.

Inductor keeps every compiled kernel (C++ source, ``.so``, Triton files) and its FX graph cache
entries under ``TORCHINDUCTOR_CACHE_DIR``, by default one machine-wide folder
(``/tmp/torchinductor_<user>``) that nothing ever prunes. Measured: a 60-minute default-mix
campaign on torch 2.13 grew it by 351 MB an hour, and a test suite sharing the folder with a
running campaign made 9 programs fail to load kernels another process had just rewritten
(``notes/campaign.md``).

Rules (:func:`slot_env`, :class:`BoundedCache`, used by ``execute/pool.Slot.after_program`` and
the campaign's background reducer):

* a user's own ``TORCHINDUCTOR_CACHE_DIR`` wins: that folder is theirs, never measured or pruned.
  Torch's own default folder in that variable does not count as a choice: Inductor writes it
  into ``os.environ`` the first time a process compiles (``cache_dir()``), so a parent that
  compiled in-process (a test, a notebook) would otherwise lose its cap;
* a cap of 0 keeps Inductor's machine-wide folder (the behaviour before this module);
* otherwise each slot's worker gets ``<slot folder>/inductor-cache`` (and Triton's own kernel
  cache, ``TRITON_CACHE_DIR``, under it, unless the user set that). Between programs, at most
  every :data:`CHECK_EVERY_S` seconds, the slot measures it; past the slot's share of the cap
  it retires its worker (so no live process holds a kernel of the folder) and empties it.

Inductor's precompiled header is not in that folder: torch keeps it under the machine-wide
``default_cache_dir()`` whatever ``TORCHINDUCTOR_CACHE_DIR`` says, so emptying a slot's folder
costs the fresh worker its start-up and kernel cache hits, never the header's 10-100 s build.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

CACHE_VAR = "TORCHINDUCTOR_CACHE_DIR"
#: Triton keeps its compiled GPU kernels in its own folder (``~/.triton/cache`` by default);
#: a slot puts it inside its capped folder too, unless the user chose one.
TRITON_VAR = "TRITON_CACHE_DIR"
FOLDER = "inductor-cache"
#: How often (seconds) a slot measures its folder: a walk of a few thousand files, ~10 ms.
CHECK_EVERY_S = 30.0


def folder_bytes(folder: Path) -> int:
    """Bytes of the regular files under ``folder`` (links not followed; 0 when missing)."""
    total = 0
    stack = [folder]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(Path(e.path))
                elif e.is_file(follow_symlinks=False):
                    total += e.stat(follow_symlinks=False).st_size
            except OSError:  # removed while we looked
                continue
    return total


def default_folder() -> str:
    """Inductor's machine-wide folder (``/tmp/torchinductor_<user>``), from torch itself."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    return os.path.abspath(default_cache_dir())


def user_folder(env: dict[str, str]) -> str | None:
    """The cache folder the user chose in ``env`` (None: none, or torch's default that
    Inductor itself wrote into the environment)."""
    value = env.get(CACHE_VAR)
    if not value or os.path.abspath(value) == default_folder():
        return None
    return value


def slot_env(
    env: dict[str, str], slot_dir: Path, cap_mb: float
) -> tuple[dict[str, str], Path | None]:
    """The worker environment of a slot and the cache folder the slot owns (None: it owns
    none, because the user chose a folder or the cap is 0). ``env`` is not changed."""
    if cap_mb <= 0 or user_folder(env):
        return dict(env), None
    # absolute: torch 2.6's AOTInductor runs g++ from another working directory, and a relative
    # cache folder (a campaign given --out runs/x) made every package fail to compile
    folder = Path(slot_dir).resolve() / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    out = {**env, CACHE_VAR: str(folder)}
    if not env.get(TRITON_VAR):
        out[TRITON_VAR] = str(folder / "triton")
    return out, folder


class BoundedCache:
    """One slot's cache folder and its share of the cap."""

    def __init__(self, folder: Path, cap_mb: float) -> None:
        self.folder, self.cap_mb = folder, cap_mb
        self.clears = 0
        self.last_mb = 0.0
        self._next_check = 0.0

    def over_cap(self, now: float | None = None) -> bool:
        """Whether the folder has passed its cap (measured at most every CHECK_EVERY_S)."""
        now = time.monotonic() if now is None else now
        if now < self._next_check:
            return False
        self._next_check = now + CHECK_EVERY_S
        self.last_mb = folder_bytes(self.folder) / 2**20
        return self.last_mb > self.cap_mb

    def clear(self) -> None:
        """Empty the folder. Only with no live worker using it (the slot retired it first)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.clears += 1
        self.last_mb = 0.0
