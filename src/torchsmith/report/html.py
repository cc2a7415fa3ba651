"""A self-contained HTML page from the report's Markdown, rendered by ``markdown-it-py``.

CommonMark plus GitHub's tables and strikethrough (the "gfm-like" preset), raw HTML escaped (a
program's error message is text, never markup); check-list items (``- [x] ...``) become ☑/☐
as on GitHub. The page is for a browser; the Markdown is what goes into the GitHub issue.
"""

from __future__ import annotations

import html

from markdown_it import MarkdownIt

_STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
pre{background:#f6f8fa;padding:.8em;overflow:auto;font-size:13px}
code{background:#f6f8fa;padding:0 .2em}pre code{padding:0}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .6em}
li.task{list-style:none}"""

_MD = MarkdownIt("gfm-like", {"html": False, "linkify": False})


def markdown_body(md: str) -> str:
    """The Markdown as an HTML fragment (check-list items shown as boxes)."""
    body = _MD.render(md)
    body = body.replace("<li>[x] ", '<li class="task">☑ ').replace(
        "<li>[ ] ", '<li class="task">☐ '
    )
    return body


def markdown_to_html(md: str, title: str = "torchsmith report") -> str:
    """A whole page: the report's Markdown rendered, with a small stylesheet inline."""
    return (
        f"<!doctype html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head>\n<body>\n{markdown_body(md)}\n</body></html>\n"
    )
