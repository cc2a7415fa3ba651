"""The troubleshooting toolbox: graph breaks (``explain``), recompilations (``recompiles``) and
compile artifacts (``debug``), one command each, plus :func:`attach_troubleshooting` for reports.

Every function here runs program code only in worker processes; see ``notes/troubleshoot.md``.
"""

from torchsmith.troubleshoot.common import TroubleshootError
from torchsmith.troubleshoot.debug import (
    DEBUG_DIR,
    EXPLAIN,
    attach_troubleshooting,
    debug_program,
    format_debug,
)
from torchsmith.troubleshoot.explain import explain_program, format_explain
from torchsmith.troubleshoot.recompiles import format_recompiles, parse_vary, recompiles_program

__all__ = [
    "DEBUG_DIR",
    "EXPLAIN",
    "TroubleshootError",
    "attach_troubleshooting",
    "debug_program",
    "explain_program",
    "format_debug",
    "format_explain",
    "format_recompiles",
    "parse_vary",
    "recompiles_program",
]
