"""Integration tier: real torch.compile runs in real worker processes.

The session's worker is ``tests/conftest.py``'s.
"""

from pathlib import Path

DATA = Path(__file__).parent.parent / "data"
EXAMPLES = Path(__file__).parent.parent.parent / "src" / "torchsmith" / "examples"
