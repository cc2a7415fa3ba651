"""Quality tier: exact results of real reductions (real torch.compile runs in real workers).

Like Hypothesis's ``tests/quality``: not only "a smaller repro was found" but *which* one. One
worker is shared by the session so the first-compile cost is paid once.
"""

from pathlib import Path

import pytest

from torchsmith.execute.worker import Worker

DATA = Path(__file__).parent / "data"
RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
BUILD_SET = "dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY"


@pytest.fixture(scope="session")
def worker():
    w = Worker(memory_mb=8192)
    yield w
    w.close()
