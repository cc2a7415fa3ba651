"""Quality tier: exact results of real reductions (real torch.compile runs in real workers).

Like Hypothesis's ``tests/quality``: not only "a smaller repro was found" but *which* one. The session's
worker is ``tests/conftest.py``'s.
"""

from pathlib import Path

DATA = Path(__file__).parent / "data"
RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
BUILD_SET = "dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY"
