"""The terminal view of check results (rich), one block per program."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from torchsmith.verdict import CheckResult, Verdict


def headline(result: CheckResult) -> str:
    """``name: MISMATCH at inductor: reason`` — one line, also used on stderr."""
    where = f" at {result.stage.value}" if result.stage else ""
    if result.phase and not result.is_bug and result.verdict is not Verdict.PASS:
        where = f" (in {result.phase.value})"
    text = f"{result.program}: {result.verdict.value.upper()}{where}"
    return f"{text}: {result.reason}" if result.reason else text


def print_result(result: CheckResult, console: Console, verbose: bool = False) -> None:
    style = result.category.style
    console.print(headline(result), style=style, markup=False, highlight=False)
    ev = result.evidence
    if result.verdict is Verdict.INVALID:
        for key in ("user_line", "module", "constraint"):
            if ev.get(key):
                console.print(f"  {key.replace('_', ' ')}: {ev[key]}", markup=False)
        if ev.get("message") and ev.get("message") not in result.reason:
            console.print(f"  message: {ev['message'].splitlines()[0][:300]}", markup=False)
    if result.verdict is Verdict.CRASH and (verbose or ev.get("torch_frame")):
        console.print(f"  innermost torch frame: {ev.get('torch_frame')}", markup=False)
        if verbose:
            console.print(ev.get("traceback_tail", ""), markup=False, highlight=False)
    figs = ev.get("figures")
    if figs and "compiled_vs_fp64" in figs:
        t = Table("vs fp64", "max abs", "max rel", "RMSE", box=None, padding=(0, 2))
        for label, key in (("compiled", "compiled_vs_fp64"), ("eager", "eager_vs_fp64")):
            f = figs[key]
            t.add_row(label, f"{f['max_abs']:.4g}", f"{f['max_rel']:.4g}", f"{f['rmse']:.4g}")
        console.print(t)
    if ev.get("confidence"):
        console.print(f"  confidence: {confidence_line(ev['confidence'])}", markup=False)
    if result.ladder:
        console.print(
            "  ladder: " + ", ".join(f"{k} {v}" for k, v in result.ladder.items()), markup=False
        )
    if result.bisect:
        b = result.bisect
        if b.get("found"):
            console.print(
                f"  bisect: backend {b.get('backend')}, subsystem {b.get('subsystem')},"
                f" application #{b.get('bisect_number')}: {b.get('debug_info') or ''}",
                markup=False,
            )
        else:
            console.print(f"  bisect: nothing isolated ({b})", markup=False)
    if verbose and result.log_tail:
        console.print("  worker log tail:\n" + result.log_tail[-2000:], markup=False)


def confidence_line(c: dict) -> str:
    """``62.5x the band of legitimate eager runs (high) ...``: the probe's confidence, one line."""
    text = f"{c.get('score', 0):.3g}x the band of legitimate eager runs ({c.get('level')})"
    if "vs_eager" in c:
        text += (
            f"; {c['vs_eager']:.3g}x eager's own error; "
            f"{100 * c.get('unexplained_fraction', 0):.3g}% of elements unexplained"
        )
    elif "left" in c:
        text += f"; {c['left']} of {c['flips']} flips that no eager variant reproduces"
    return text
