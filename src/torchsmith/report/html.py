"""A self-contained HTML page from the report's Markdown (the subset the report uses).

Headings, paragraphs, fenced code, pipe tables, check lists and bullet lists, inline code, bold
and links; everything else is escaped text. No dependency: the page is for a browser, the
Markdown is what goes into the GitHub issue.
"""

from __future__ import annotations

import html
import re

_STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
pre{background:#f6f8fa;padding:.8em;overflow:auto;font-size:13px}
code{background:#f6f8fa;padding:0 .2em}pre code{padding:0}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .6em}
li{list-style:none}"""


def _inline(text: str) -> str:
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        s = html.escape(part)
        s = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", s)
        s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', s)
        out.append(s)
    return "".join(out)


def _table(rows: list[str]) -> str:
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    head, body = cells[0], [c for c in cells[1:] if not all(set(x) <= {"-", ":"} for x in c)]
    out = ["<table><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in body]
    return "\n".join(out) + "</table>"


def markdown_to_html(md: str, title: str = "torchsmith report") -> str:
    lines = md.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre><code>" + html.escape("\n".join(lines[i + 1 : j])) + "</code></pre>")
            i = j + 1
            continue
        m = re.match(r"^(#{1,6}) (.*)", line)
        if m:
            n = len(m.group(1))
            out.append(f"<h{n}>{_inline(m.group(2))}</h{n}>")
        elif line.startswith("|"):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append(_table(lines[i:j]))
            i = j
            continue
        elif line.startswith("- "):
            j = i
            items = []
            while j < len(lines) and lines[j].startswith("- "):
                item = lines[j][2:]
                box = re.match(r"^\[( |x)\] (.*)", item)
                if box:
                    mark = "☑" if box.group(1) == "x" else "☐"
                    item = f"{mark} {_inline(box.group(2))}"
                else:
                    item = "• " + _inline(item)
                items.append(f"<li>{item}</li>")
                j += 1
            out.append("<ul>" + "".join(items) + "</ul>")
            i = j
            continue
        elif line.strip():
            out.append(f"<p>{_inline(line)}</p>")
        i += 1
    body = "\n".join(out)
    return (
        f"<!doctype html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )
