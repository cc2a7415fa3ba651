"""The campaign page: one self-contained HTML file that opens from disk (no server, no network).

``torchsmith status DIR --html [OUT]`` writes it (default ``DIR/campaign.html``). Top to bottom:
key figures; the campaign's settings and versions; plots (programs per minute and findings
over time, verdict mix, findings per stage, per generator family and per op, compile-time
distribution); the distinct bugs, each with its minimal repro, stage, signature, count, version
table (``torchsmith regress``) and the pt2 report; faults. Plots are static SVG inline
(:mod:`torchsmith.report.plots`), Markdown (reports, version tables) is rendered by
markdown-it-py (:mod:`torchsmith.report.html`), styles are inline; the page has no script.
Links to finding folders are relative to where the page is written.
"""

from __future__ import annotations

import datetime as dt
import html
import os
from pathlib import Path
from typing import Any

from torchsmith.campaign.config import SHOWN_SETTINGS
from torchsmith.regress import markdown_lines
from torchsmith.report import plots
from torchsmith.report.html import markdown_body
from torchsmith.report.page_data import TOP_OPS, campaign_data

PAGE_NAME = "campaign.html"

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;
 background:#f6f8fa}
main{max-width:1280px;margin:0 auto;padding:1.5em 2em 4em}
h1{margin:.2em 0 .1em;font-size:1.7em}h2{margin:1.6em 0 .6em;border-bottom:1px solid #d0d7de;
 padding-bottom:.2em}h3{margin:.2em 0 .4em}
.sub{color:#59636e}.state{display:inline-block;padding:.1em .6em;border-radius:1em;
 font-size:.8em;font-weight:600;background:#ddf4ff;color:#0969da;vertical-align:middle}
.state.finished{background:#dafbe1;color:#1a7f37}.state.killed,.state.failed{background:#ffebe9;
 color:#cf222e}
.cards{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}
.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.6em 1em;min-width:8em}
.card b{display:block;font-size:1.6em}.card span{color:#59636e;font-size:.85em}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:1.2em}
.plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:1.2em}
figure.plot{margin:0;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.6em}
figure.plot svg{width:100%;height:auto;display:block}
figure.plot figcaption{color:#59636e;font-size:.85em;margin-top:.3em}
p.empty{color:#59636e;font-style:italic;padding:2em;text-align:center}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #d0d7de;padding:.25em .6em;
 text-align:left;vertical-align:top}th{background:#f6f8fa}
table.kv td:first-child{color:#59636e;white-space:nowrap}
.bug{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.8em 1.2em;margin:1em 0}
.bug .meta{color:#59636e;font-size:.9em}
pre{background:#f6f8fa;padding:.7em;overflow:auto;font-size:12.5px;border-radius:6px}
code{font-size:12.5px}details{margin:.6em 0}summary{cursor:pointer;font-weight:600}
.report{border-left:3px solid #d0d7de;padding-left:1em}.report h1{font-size:1.25em}
li.task{list-style:none}.tag{font-size:.8em;background:#eef1f4;border-radius:4px;padding:0 .4em}
"""


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _when(epoch: float | None) -> str:
    if not epoch:
        return "-"
    return dt.datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M:%S")


def _duration(seconds: float) -> str:
    s = int(seconds or 0)
    h, rem = divmod(s, 3600)
    return f"{h}h {rem // 60:02d}m" if h else f"{rem // 60}m {rem % 60:02d}s"


def _kv(items: list[tuple[str, Any]]) -> str:
    rows = "".join(f"<tr><td>{_esc(k)}</td><td>{_esc(v)}</td></tr>" for k, v in items)
    return f'<table class="kv">{rows}</table>'


def _settings(params: dict[str, Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key in SHOWN_SETTINGS:
        value = params.get(key)
        if value in (None, {}, [], False) and key not in ("seed",):
            continue
        if key == "time_budget":
            value = _duration(value)
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        out.append((key.replace("_", " "), value))
    opts = params.get("options") or {}
    config = opts.get("config") or {}
    plain = {k: v for k, v in opts.items() if k != "config" and v not in (None, {}, [])}
    out.append(("check options", ", ".join(f"{k}={v}" for k, v in plain.items())))
    if config:
        out.append(("config", ", ".join(f"{k}={v}" for k, v in config.items())))
    return out


def _figure(svg: str | None, caption: str = "", name: str = "") -> str:
    body = svg or f'<p class="empty" data-plot="{_esc(name)}">nothing to plot yet</p>'
    cap = f"<figcaption>{_esc(caption)}</figcaption>" if caption else ""
    return f'<figure class="plot" id="plot-{_esc(name)}">{body}{cap}</figure>'


def _row_bars(
    name: str, title: str, rows: list[dict[str, Any]], keys: tuple[str, str], unit: str, **kw: Any
) -> str:
    """A bar chart of ``rows``: labels from ``keys[0]``, bar heights from ``keys[1]``."""
    labels, values = [r[keys[0]] for r in rows], [r[keys[1]] for r in rows]
    return plots.bar_chart(name, title, labels, values, unit, **kw)


def plot_section(data: dict[str, Any]) -> list[str]:
    """The plots, each a ``<figure class="plot">`` holding one inline ``<svg>``."""
    out = []
    tl = data["timeline"]
    if tl["rate"]:
        xs, ys = zip(*tl["rate"])
        svg = plots.time_series(
            "rate", "Programs per minute", [("programs/min", xs, ys)], "programs / min", step=True
        )
        caption = "Programs recorded per minute in time bins, every session on the wall clock"
        out.append(_figure(svg, caption + " (the first bin includes start-up).", "rate"))
    else:
        out.append(_figure(None, name="rate"))
    if tl["findings"]:
        series = [("findings", *zip(*tl["findings"])), ("distinct bugs", *zip(*tl["bugs"]))]
        svg = plots.time_series(
            "found", "Findings over time", series, "count", step=True, events=tl["new_bugs"]
        )
        out.append(_figure(svg, "Red dots: a new distinct bug (hover for its signature).", "found"))
    verdicts = data["verdicts"]
    total = sum(verdicts.values()) or 1
    if verdicts:
        labels = list(verdicts)
        svg = plots.bar_chart(
            "verdicts",
            "Verdict mix",
            labels,
            [verdicts[v] for v in labels],
            "programs",
            colors=[plots.VERDICT_COLORS.get(v, "#999") for v in labels],
            notes=[f"{verdicts[v]} ({100.0 * verdicts[v] / total:.1f}%)" for v in labels],
        )
        out.append(_figure(svg, "", "verdicts"))
    stages = data["stages"]
    if stages:
        names = list(stages)
        kinds = sorted({v for c in stages.values() for v in c})
        svg = plots.bar_chart(
            "stages",
            "Compiler-bug findings per stage",
            names,
            {k: [stages[s].get(k, 0) for s in names] for k in kinds},
            "findings",
            colors=plots.VERDICT_COLORS,
            notes=[
                f"{sum(stages[s].values())} findings, {data['stage_bugs'].get(s, 0)} bugs"
                for s in names
            ],
        )
        out.append(_figure(svg, "Stage: the first backend on the ladder that fails.", "stages"))
    else:
        out.append(_figure(None, "No compiler-bug findings yet.", "stages"))
    fams = data["families"]
    if fams:
        svg = _row_bars(
            "families",
            "Findings per 1000 programs, by generator family",
            fams,
            ("family", "findings_per_k"),
            "per 1000 programs",
            notes=[
                f"{f['findings_per_k']:g} ({f['findings']} findings, {f['bugs']} bugs,"
                f" {f['programs']} programs)"
                for f in fams
            ],
        )
        out.append(_figure(svg, "", "families"))
    out.append(_op_figure(data["ops"]))
    cs = {k: v for k, v in data["compile_s"].items() if v}
    if cs:
        colors = {
            "pass": plots.VERDICT_COLORS["pass"],
            "compiler bug": plots.SECOND,
            "other": "#b0b0b0",
        }
        svg = plots.histogram(
            "compile",
            "Compiled-phase time (compile + first run)",
            cs,
            "seconds (log scale)",
            colors=colors,
        )
        out.append(_figure(svg, "Per checked program, the worker's compiled phase.", "compile"))
    else:
        out.append(_figure(None, name="compile"))
    return out


def _op_figure(ops: dict[str, Any]) -> str:
    rows = ops["rows"]
    rated = [r for r in rows if r["per_k"] is not None and r["findings"]]
    if rated:
        rated = rated[:TOP_OPS]
        n, k = ops["checked"], ops["sampled"]
        how = f"exact (all {n})" if ops["exact"] else f"estimated from {k} of {n}"
        svg = _row_bars(
            "ops",
            "Findings per 1000 programs that use the op",
            rated,
            ("op", "per_k"),
            "per 1000 programs using the op",
            notes=[f"{r['per_k']:g} ({r['findings']} / {r['programs']})" for r in rated],
        )
        caption = f"Programs using each op: {how} checked programs, {ops['source']}."
        return _figure(svg, caption, "ops")
    counted = [r for r in rows if r["findings"]][:TOP_OPS]
    if counted:
        svg = _row_bars(
            "ops", "Compiler-bug findings per op", counted, ("op", "findings"), "findings"
        )
        return _figure(svg, f"No per-op rate: the ops of all programs are {ops['source']}.", "ops")
    return _figure(None, "No compiler-bug findings yet.", "ops")


def _rel(path: str | Path, base: Path) -> str:
    return os.path.relpath(Path(path).resolve(), base.resolve())


def _bug_html(i: int, bug: dict[str, Any], base: Path) -> str:
    parts = [f'<section class="bug" id="bug-{i}">']
    known = f' <span class="tag">{_esc(_label(bug))}</span>'
    parts.append(f"<h3>{i}. {_esc(bug.get('readable') or bug['signature'])}{known}</h3>")
    meta = [
        f"signature <code>{_esc(bug['signature'])}</code>",
        f"stage <b>{_esc(bug.get('stage') or '-')}</b>",
        f"verdicts {_esc(', '.join(bug.get('verdicts') or []))}",
        f"{bug['count']} finding(s), first seed {bug.get('first_seed')} at"
        f" {_when(bug.get('first_recorded'))}",
    ]
    if bug.get("finding_dir"):
        folder = Path(bug["finding_dir"])
        link = f'<a href="{_esc(_rel(folder, base))}/">{_esc(folder.name)}</a>'
        if (folder / "report.md").exists():
            link += f' (<a href="{_esc(_rel(folder / "report.md", base))}">report.md</a>)'
        meta.append(f"smallest finding {link}")
    if bug.get("repro_finding") and bug.get("repro_finding") != bug.get("smallest"):
        meta.append(f"reduced: <code>{_esc(bug['repro_finding'])}</code>")
    parts.append(f'<p class="meta">{" · ".join(meta)}</p>')
    if bug.get("repro"):
        script = Path(bug.get("repro_dir") or ".") / "repro.py"
        alone = (
            f' (standalone script: <a href="{_esc(_rel(script, base))}">repro.py</a>)'
            if script.exists()
            else ""
        )
        parts.append(f"<h4>Minimal repro{alone}</h4>")
        parts.append(markdown_body(f"```python\n{bug['repro'].rstrip()}\n```"))
    parts.append("<h4>Torch versions</h4>")
    if bug.get("regress"):
        parts.append(markdown_body("\n".join(markdown_lines(bug["regress"]))))
    else:
        target = bug.get("finding_dir") or "FINDING"
        parts.append(
            "<p class='sub'>Not re-checked: <code>torchsmith regress"
            f" {_esc(target)} --python VENV/bin/python ...</code></p>"
        )
    if bug.get("report_md"):
        parts.append("<details><summary>pt2 bug report (Markdown for the GitHub issue)</summary>")
        parts.append(f'<div class="report">{markdown_body(bug["report_md"])}</div></details>')
    parts.append("</section>")
    return "\n".join(parts)


def _label(bug: dict[str, Any]) -> str:
    """``new``, ``known #123456`` or ``lesser``: the cause's label (the list leads with new)."""
    lab = bug.get("label") or ("known" if bug.get("known") else "new")
    return f"{lab} {bug['known_as']}" if bug.get("known_as") and lab != "new" else lab


def _bug_table(bugs: list[dict[str, Any]]) -> str:
    head = ("#", "bug", "stage", "verdicts", "findings", "first seen", "versions")
    rows = []
    for i, b in enumerate(bugs, 1):
        versions = "; ".join((b.get("regress") or {}).get("summary") or []) or "not re-checked"
        cells = (
            f'<a href="#bug-{i}">{i}</a>',
            _esc(b.get("readable") or b["signature"]) + f" ({_esc(_label(b))})",
            _esc(b.get("stage") or "-"),
            _esc(", ".join(b.get("verdicts") or [])),
            str(b["count"]),
            _esc(_when(b.get("first_recorded"))),
            _esc(versions),
        )
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    header = "".join(f"<th>{h}</th>" for h in head)
    return f'<table class="bugs"><tr>{header}</tr>{"".join(rows)}</table>'


def render_page(data: dict[str, Any], base: Path) -> str:
    """The page for :func:`~torchsmith.report.page_data.campaign_data`'s ``data``; links are
    relative to ``base`` (the folder the page is written to)."""
    s = data["summary"]
    state = s.get("state", "unknown")
    cards = [
        (s.get("programs", 0), "programs"),
        (f"{s.get('programs_per_min', 0):g}", "programs / min"),
        (f"{s.get('valid_pct', 0):g}%", "valid"),
        (s.get("findings", 0), "bug findings"),
        ((s.get("labels") or {}).get("new", 0), "new bugs"),
        (s.get("bugs", 0), f"causes (from {s.get('signatures', s.get('bugs', 0))} signatures)"),
        (s.get("faults", 0), "faults"),
        (s.get("worker_deaths", 0), "worker restarts"),
        (_duration(s.get("elapsed_s", 0)), "elapsed"),
    ]
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>torchsmith campaign {_esc(data['name'])}</title>",
        f"<style>{_STYLE}</style></head><body><main>",
        f"<h1>torchsmith campaign <code>{_esc(data['name'])}</code> "
        f'<span class="state {_esc(state)}">{_esc(state)}</span></h1>',
        f'<p class="sub">{_esc(data["folder"])} · created {_when(data.get("created"))} ·'
        f" {data.get('sessions') or 1} session(s) · page generated {_when(data['generated'])}</p>",
        '<div class="cards">'
        + "".join(
            f'<div class="card"><b>{_esc(v)}</b><span>{_esc(k)}</span></div>' for v, k in cards
        )
        + "</div>",
        '<div class="cols"><div><h2>Settings</h2>',
        _kv(_settings(data["params"])),
        "</div><div><h2>Versions</h2>",
        _kv(list(data["versions"].items())),
        "</div></div>",
        "<h2>Plots</h2>",
        '<div class="plots">',
        *plot_section(data),
        "</div>",
        f"<h2>Distinct bugs ({len(data['bugs'])})</h2>",
    ]
    if data["bugs"]:
        out.append(_bug_table(data["bugs"]))
        out += [_bug_html(i, b, base) for i, b in enumerate(data["bugs"], 1)]
    else:
        out.append("<p class='sub'>No compiler bugs found.</p>")
    faults = data["faults"]
    out.append(f"<h2>Faults ({len(faults)})</h2>")
    if faults:
        rows = "".join(
            f"<tr><td>{_esc(f['readable'] or f['signature'])}</td><td>{f['count']}</td>"
            f"<td>{_esc(', '.join(f['verdicts']))}</td><td>{_esc(f.get('smallest') or '-')}</td></tr>"
            for f in faults
        )
        out.append(
            "<p class='sub'>Deaths and hangs outside the compiled phases (eager PyTorch or"
            " the program), shown apart from compiler bugs.</p>"
        )
        out.append(
            f"<table><tr><th>fault</th><th>count</th><th>verdicts</th><th>example</th></tr>"
            f"{rows}</table>"
        )
    else:
        out.append("<p class='sub'>None.</p>")
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"


def write_page(folder: str | Path, out: str | Path | None = None, **options: Any) -> Path:
    """Write the campaign page for ``folder`` to ``out`` (default ``folder/campaign.html``; a
    directory gets ``campaign.html`` inside) and return its path. ``options`` go to
    :func:`~torchsmith.report.page_data.campaign_data`."""
    folder = Path(folder)
    path = Path(out) if out else folder / PAGE_NAME
    if path.is_dir():
        path = path / PAGE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    data = campaign_data(folder, **options)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_page(data, path.parent))
    os.replace(tmp, path)
    return path
