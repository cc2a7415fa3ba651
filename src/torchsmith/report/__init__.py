"""Human-facing output: the terminal view of verdicts and (later) Markdown reports."""
