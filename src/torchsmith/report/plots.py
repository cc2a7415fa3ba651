"""Static plots for the campaign page: matplotlib figures as inline SVG (no JavaScript, no server).

Each function takes plain numbers and returns one ``<svg>`` element as text, ready to paste into
an HTML page: text stays text (``svg.fonttype = none``: searchable, crisp at any zoom), ids are
prefixed per plot so several SVGs coexist in one document, the output is deterministic (no date,
a fixed hash salt), and bars and points carry ``<title>`` tooltips with their exact values.
Only the object-oriented API is used (``matplotlib.figure.Figure``, never ``pyplot``): no global
figure state, no GUI backend, safe in any thread.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import re
from collections.abc import Sequence

import matplotlib
from matplotlib import dates as mdates
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

#: Colours by meaning, shared by every plot on the page.
VERDICT_COLORS = {
    "pass": "#4c9f70",
    "imprecise": "#9cc5a1",
    "unstable": "#b5d99c",
    "invalid": "#b0b0b0",
    "nondeterministic": "#8d8d8d",
    "crash": "#d1495b",
    "mismatch": "#ed7d3a",
    "nan-mismatch": "#edae49",
    "meta-mismatch": "#c97b84",
    "died": "#6c3483",
    "timeout": "#3c6e71",
    "limit": "#66a3c4",
}
ACCENT = "#3066be"
SECOND = "#d1495b"
_RC = {
    "svg.fonttype": "none",
    "font.size": 9,
    "font.family": "sans-serif",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
}


def _figure(width: float = 6.4, height: float = 3.2) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def to_svg(fig: Figure, name: str, tips: dict[str, str] | None = None) -> str:
    """``fig`` as one inline ``<svg>`` element. ``name`` prefixes its ids; ``tips`` maps an
    artist's gid to its tooltip text."""
    buf = io.StringIO()
    with matplotlib.rc_context({**_RC, "svg.hashsalt": name}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    text = re.sub(r'\bid="([^"]+)"', rf'id="{name}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{name}-\1)", text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{name}-\1"', text)
    for gid, tip in (tips or {}).items():
        text = text.replace(
            f'<g id="{name}-{gid}">', f'<g id="{name}-{gid}"><title>{html.escape(tip)}</title>', 1
        )
    return text.replace("<svg ", f'<svg class="plot-svg" data-plot="{name}" ', 1)


def _style(fig: Figure) -> None:
    for ax in fig.axes:
        ax.grid(axis="both", color="#e6e6e6", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)


def time_series(
    name: str,
    title: str,
    series: Sequence[tuple[str, Sequence[float], Sequence[float]]],
    ylabel: str,
    *,
    step: bool = False,
    events: Sequence[tuple[float, float, str]] = (),
) -> str:
    """Lines over wall-clock time: ``series`` is ``(label, epoch seconds, values)``; ``events``
    are ``(epoch seconds, value, tooltip)`` points drawn on top (new bugs, say)."""
    with matplotlib.rc_context(_RC):
        fig = _figure()
        ax = fig.add_subplot()
        colors = [ACCENT, SECOND, "#4c9f70", "#edae49"]
        for i, (label, xs, ys) in enumerate(series):
            when = [dt.datetime.fromtimestamp(x) for x in xs]
            if step:
                ax.step(when, ys, where="post", label=label, color=colors[i % 4], linewidth=1.6)
            else:
                ax.plot(when, ys, label=label, color=colors[i % 4], linewidth=1.6, marker=".")
        tips = {}
        for i, (x, y, tip) in enumerate(events):
            pt = ax.plot([dt.datetime.fromtimestamp(x)], [y], "o", color=SECOND, markersize=6)[0]
            pt.set_gid(f"tip{i}")
            tips[f"tip{i}"] = tip
        ax.set_title(title, loc="left")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        loc = mdates.AutoDateLocator()
        ax.xaxis.set_major_locator(loc)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(loc))
        if len(series) > 1:
            ax.legend(frameon=False, loc="upper left")
        _style(fig)
        return to_svg(fig, name, tips)


def bar_chart(
    name: str,
    title: str,
    labels: Sequence[str],
    values: Sequence[float] | dict[str, Sequence[float]],
    xlabel: str,
    *,
    notes: Sequence[str] | None = None,
    colors: Sequence[str] | dict[str, str] | None = None,
    tips: Sequence[str] | None = None,
) -> str:
    """Horizontal bars, one per label, top to bottom in the order given. ``values`` is one
    list, or stacks ``{segment: list}``; ``notes`` are written at each bar's end (``3 / 1200``)
    and ``tips`` become tooltips."""
    stacks = values if isinstance(values, dict) else {"": list(values)}
    n = len(labels)
    with matplotlib.rc_context(_RC):
        fig = _figure(6.4, max(1.4, 0.8 + 0.26 * n))
        ax = fig.add_subplot()
        ys = list(range(n))[::-1]
        left = [0.0] * n
        gids: dict[str, str] = {}
        for s, (segment, vals) in enumerate(stacks.items()):
            if isinstance(colors, dict):
                color: str | Sequence[str] = colors.get(segment, ACCENT)
            else:
                color = list(colors) if colors else ACCENT
            bars = ax.barh(ys, vals, left=left, color=color, height=0.7, label=segment or None)
            for i, bar in enumerate(bars):
                if vals[i] and tips is None:
                    bar.set_gid(f"tip{s}-{i}")
                    what = f"{segment}: " if segment else ""
                    gids[f"tip{s}-{i}"] = f"{labels[i]}: {what}{vals[i]:g}"
                elif tips is not None and s == 0:
                    bar.set_gid(f"tip{s}-{i}")
                    gids[f"tip{s}-{i}"] = tips[i]
            left = [a + b for a, b in zip(left, vals)]
        top = max(left, default=0) or 1
        for i, y in enumerate(ys):
            note = notes[i] if notes else f"{left[i]:g}"
            ax.text(left[i] + top * 0.01, y, note, va="center", fontsize=8, color="#444")
        ax.set_yticks(ys, labels)
        ax.set_xlim(0, top * 1.18)
        ax.set_xlabel(xlabel)
        ax.set_title(title, loc="left")
        if len(stacks) > 1:
            ax.legend(frameon=False, loc="lower right", fontsize=8)
        _style(fig)
        ax.grid(axis="y", visible=False)
        return to_svg(fig, name, gids)


def histogram(
    name: str,
    title: str,
    groups: dict[str, Sequence[float]],
    xlabel: str,
    *,
    log: bool = True,
    colors: dict[str, str] | None = None,
) -> str:
    """Distribution of positive values (seconds), on log-spaced bins when ``log``; one layer per
    group; the median and the 90th percentile of all values are marked."""
    everything = sorted(v for vals in groups.values() for v in vals if v > 0)
    with matplotlib.rc_context(_RC):
        fig = _figure()
        ax = fig.add_subplot()
        if everything:
            lo, hi = everything[0], everything[-1]
            if log and hi > lo:
                import numpy as np

                bins = list(np.geomspace(lo, hi * 1.0001, 25))
                ax.set_xscale("log")
                ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
                ax.xaxis.set_minor_formatter(NullFormatter())
            else:
                bins = 25  # type: ignore[assignment]
            data = [[v for v in vals if v > 0] for vals in groups.values()]
            col = [(colors or {}).get(g, ACCENT) for g in groups]
            ax.hist(data, bins=bins, stacked=True, label=list(groups), color=col)
            med = everything[len(everything) // 2]
            p90 = everything[min(len(everything) - 1, int(len(everything) * 0.9))]
            for value, what, y in ((med, "median", 1.0), (p90, "p90", 0.92)):
                ax.axvline(value, color="#333", linestyle="--", linewidth=0.8)
                ax.text(
                    value,
                    y,
                    f" {what} {value:.3g}s",
                    transform=ax.get_xaxis_transform(),
                    va="top",
                    fontsize=8,
                )
            if len(groups) > 1:
                ax.legend(frameon=False, fontsize=8, loc="upper left")
        ax.set_title(title, loc="left")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("programs")
        _style(fig)
        return to_svg(fig, name)
