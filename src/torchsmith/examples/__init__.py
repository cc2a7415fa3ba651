"""Built-in example programs: the default job of ``torchsmith check --examples``."""

from __future__ import annotations

from pathlib import Path

EXAMPLES_DIR = Path(__file__).parent


def example_paths() -> list[Path]:
    return sorted(p for p in EXAMPLES_DIR.glob("*.py") if not p.name.startswith("_"))


def expected_verdict(path: Path) -> str | None:
    """The ``# expect: VERDICT`` header an example declares, if any."""
    for line in path.read_text().splitlines()[:5]:
        if line.startswith("# expect:"):
            return line.split(":", 1)[1].strip()
    return None
