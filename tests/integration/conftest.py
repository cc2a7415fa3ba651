"""Integration tier: real torch.compile runs in real worker processes.

One worker is shared by the whole session so the first-compile cost (about 20 s in a fresh
process) is paid once.
"""

from pathlib import Path

import pytest

from torchsmith.execute.worker import Worker

DATA = Path(__file__).parent.parent / "data"
EXAMPLES = Path(__file__).parent.parent.parent / "src" / "torchsmith" / "examples"


@pytest.fixture(scope="session")
def worker():
    w = Worker(memory_mb=8192)
    yield w
    w.close()
