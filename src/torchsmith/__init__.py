"""torchsmith: finds bugs in torch.compile and hands over reports maintainers can act on."""

from torchsmith import astlock

astlock.install()

from torchsmith.check import CheckError, check, check_program  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.format import Program, ProgramFormatError  # noqa: E402
from torchsmith.program.load import load_program  # noqa: E402
from torchsmith.verdict import CheckResult, Phase, Stage, Symptom, Verdict  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "CheckError",
    "CheckOptions",
    "CheckResult",
    "Phase",
    "Program",
    "ProgramFormatError",
    "Stage",
    "Symptom",
    "Verdict",
    "check",
    "check_program",
    "load_program",
]
