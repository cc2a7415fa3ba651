"""The troubleshooting toolbox: graph breaks (``explain``), recompilations (``recompiles``),
compile artifacts (``debug``), logs by step (``logs``), compile and run time (``profile``) and
PyTorch's minifier checked by torchsmith (``minify``), one command each, plus
:func:`attach_troubleshooting` for reports. ``--only NAME`` (:mod:`.only`) compiles one part.

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
from torchsmith.troubleshoot.logs import format_logs, logs_program
from torchsmith.troubleshoot.minify import format_minify, minify_finding, minify_program
from torchsmith.troubleshoot.profile import format_profile, profile_program
from torchsmith.troubleshoot.recompiles import format_recompiles, parse_vary, recompiles_program

__all__ = [
    "DEBUG_DIR",
    "EXPLAIN",
    "TroubleshootError",
    "attach_troubleshooting",
    "debug_program",
    "explain_program",
    "logs_program",
    "minify_finding",
    "minify_program",
    "profile_program",
    "format_debug",
    "format_explain",
    "format_logs",
    "format_minify",
    "format_profile",
    "format_recompiles",
    "parse_vary",
    "recompiles_program",
]
