"""torchsmith: finds bugs in torch.compile and hands over reports maintainers can act on."""

from torchsmith.check import CheckError, check, check_program
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import load_program
from torchsmith.verdict import CheckResult, Phase, Stage, Symptom, Verdict

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
