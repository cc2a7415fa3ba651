"""Shared fixtures and the cost tiers.

* ``tests/unit``: fast, no ``torch.compile`` (``pytest -m "not slow"``, under 3 minutes);
* ``tests/integration`` and ``tests/quality``: real compiles in real workers, marked ``slow``
  here by folder (a test that compiles belongs there);
* ``tests/gpu``: skipped without CUDA.

One worker process serves a whole session (:func:`worker`), so the first-compile cost (about
20 s in a fresh process) is paid once.
"""

from pathlib import Path

import pytest

from torchsmith.execute.worker import Worker

DATA = Path(__file__).parent / "data"
SLOW_TIERS = ("integration", "quality", "gpu")


def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = Path(str(item.fspath)).relative_to(Path(__file__).parent).parts[0]
        if tier in SLOW_TIERS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def worker():
    """The session's crash-safe worker (replaced transparently when a program kills it)."""
    w = Worker(memory_mb=8192)
    yield w
    w.close()
