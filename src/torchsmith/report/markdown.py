"""A finding as a GitHub issue body that fills PyTorch's pt2 bug template.

``.github/ISSUE_TEMPLATE/pt2-bug-report.yml`` asks for "🐛 Describe the bug" (with the ablation
and a minimal reproducer), "Error logs" and "Versions" (``collect_env``); its preamble asks fuzzer
reports for default tolerances, an fp64 baseline through ``same()``, ``fallback_random`` with
reset seeds, and no comparison of max/min indices. :func:`render` writes each of those from the
finding folder, and checks each checklist item against ``meta.json`` instead of asserting it.
When the finding was reduced (``reduced_to`` in its meta) the reduced finding is the repro.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

from torchsmith.dedup import failure_key, unwrap_message
from torchsmith.finding import Finding, FindingMeta, read_finding
from torchsmith.options import DEFAULT_TOL
from torchsmith.program.format import dotted_name
from torchsmith.program.ops import source_ops
from torchsmith.program.plain import plain_script
from torchsmith.program.render import render_script
from torchsmith.program.render_export import PATH_CALLS, compiler_name
from torchsmith.regress import markdown_lines, read_regress
from torchsmith.verdict import CheckResult, Stage, Verdict

REPORT_MD = "report.md"
REPORT_HTML = "report.html"

#: Component tags PyTorch issue titles use, per stage.
_TAGS = {
    Stage.DYNAMO: "dynamo",
    Stage.AOTAUTOGRAD: "aot_autograd",
    Stage.DECOMP: "decompositions",
    Stage.INDUCTOR: "inductor",
    Stage.CACHE: "compile cache",
    Stage.BACKEND: "backend",
    Stage.EXPORT: "export",
    Stage.EXPORT_DECOMP: "export",
    Stage.AOTI_COMPILE: "aotinductor",
    Stage.AOTI_RUN: "aotinductor",
}
#: Ops whose integer outputs are indices of extremes: comparing them is not a fuzzer finding.
_INDEX_OPS = {
    "argmax",
    "argmin",
    "max",
    "min",
    "sort",
    "argsort",
    "topk",
    "kthvalue",
    "median",
    "mode",
    "cummax",
    "cummin",
    "aminmax",
    "max_dim",
    "min_dim",
    "unique",
}


@functools.lru_cache(maxsize=1)
def collect_env() -> str:
    """``python -m torch.utils.collect_env`` (a few seconds; run once per process)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "torch.utils.collect_env"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        text = proc.stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        text = ""
        err = repr(e)
    else:
        err = proc.stderr.strip()[-300:]
    if not text:
        import platform

        import torch

        text = (
            f"PyTorch version: {torch.__version__}\nPython version: {platform.python_version()}\n"
            f"Python platform: {platform.platform()}\n(collect_env failed: {err})"
        )
    lines = [
        ln for ln in text.splitlines() if ln.strip() != "Collecting environment information..."
    ]
    return "\n".join(lines)


def minimal_finding(finding: Finding) -> Finding:
    """The reduced finding when one was written for ``finding``, else ``finding`` itself."""
    to = finding.info.reduced_to
    if to and (finding.folder.parent / to / "meta.json").exists():
        return read_finding(finding.folder.parent / to)
    return finding


def _ops(finding: Finding, limit: int = 3) -> list[str]:
    """The ops the model's code calls, as written (``torch.relu``, ``F.pad``, ``Tensor.view``,
    ``nn.Conv2d`` for ``self.conv(x)``), ``torch.*`` first: what a PyTorch title names."""
    tree = ast.parse(finding.program.source)
    cls = next(
        (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == finding.program.model),
        None,
    )
    if cls is None:
        return []
    layers: dict[str, str] = {}
    methods = [m for m in cls.body if isinstance(m, ast.FunctionDef)]
    for m in methods:
        for n in ast.walk(m):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
                t = n.targets[0]
                if isinstance(t, ast.Attribute) and dotted_name(t.value) == "self":
                    layers[t.attr] = dotted_name(n.value.func)
    found: list[str] = []
    for m in methods:
        if m.name == "__init__":
            continue
        for node in ast.walk(m):
            if not isinstance(node, ast.Call):
                continue
            name = dotted_name(node.func)
            head = name.split(".")[0]
            if head in {"torch", "F", "nn"}:
                op = name
            elif name.startswith("self.") and name.count(".") == 1:
                op = layers.get(name[5:], "")
            elif isinstance(node.func, ast.Attribute) and head not in {"self", "super", ""}:
                op = "Tensor." + node.func.attr
            else:
                continue
            if op and not op.split(".")[-1].startswith("_") and op not in found:
                found.append(op)
    found.sort(key=lambda o: (not o.startswith("torch."), not o.startswith("F."), o))
    return found[:limit]


def _first_line(text: str, limit: int = 100) -> str:
    for line in str(text).splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 3] + "..."
    return ""


def title(finding: Finding) -> str:
    """``[inductor] [cpu] torch.relu: CppCompileError: C++ compile error`` (PyTorch's style)."""
    r = finding.result
    opts = finding.options
    tags = f"[{_TAGS.get(r.stage, 'torch.compile') if r.stage else 'torch.compile'}]"
    tags += f" [{opts.device.split(':')[0]}]"
    ops = ", ".join(_ops(finding))
    ev = r.evidence
    tc = compiler_name(opts.backend)  # torch.compile, or the export path
    if r.verdict is Verdict.CRASH:  # a C++ compile error by the compiler's first error line
        msg = _first_line(unwrap_message(str(ev.get("message", ""))), 140)
        exc = str(ev.get("root_type") or ev.get("exc_type") or "").rsplit(".", 1)[-1]
        what = msg if msg.split(":", 1)[0].isidentifier() and ":" in msg else f"{exc}: {msg}"
    elif r.verdict is Verdict.MISMATCH:
        figs = ev.get("figures") or {}
        # a finding in a gradient only (the forward agrees) is titled as one
        kind = "wrong gradient" if str(ev.get("output", "")).startswith("grad") else "wrong result"
        if "compiled_vs_fp64" in figs:
            c, e = figs["compiled_vs_fp64"]["max_abs"], figs["eager_vs_fp64"]["max_abs"]
            what = f"{kind} with {tc} (max abs error vs fp64 {c:.3g}, eager {e:.3g})"
        else:
            what = f"{kind} with {tc}"
    elif r.verdict is Verdict.NAN_MISMATCH:
        what = f"{tc} produces NaN where eager and fp64 do not (or the reverse)"
    elif r.verdict is Verdict.META_MISMATCH:
        what = f"{tc} output differs in structure, shape or dtype"
    elif r.verdict is Verdict.DIED:
        what = f"{tc} kills the process ({ev.get('signal') or ev.get('returncode')})"
    elif r.verdict is Verdict.TIMEOUT:
        what = f"{tc} hangs"
    else:
        what = r.verdict.value
    if opts.fullgraph:
        what += " (fullgraph=True)"
    return f"{tags} {ops + ': ' if ops else ''}{what}"


def _ablation(r: CheckResult) -> list[str]:
    if not r.ladder:
        return ["Not localized on the backend ladder (the finding was checked with --no-localize)."]
    rows = ["| backend | result |", "|---|---|"]
    for backend, verdict in r.ladder.items():
        mark = "✅" if verdict == "pass" else ("➖" if verdict == "not run" else "❌")
        rows.append(f"| `{backend}` | {mark} {verdict} |")
    stage = r.stage.value if r.stage else "unknown"
    return [*rows, "", f"First failing stage: **{stage}**."]


def _config_space(info: FindingMeta) -> list[str]:
    """The settings bisection's outcome, for a finding of ``fuzz --config-space``."""
    if info.config_sampled is None:
        return []
    sampled = ", ".join(f"`{k}={v!r}`" for k, v in sorted(info.config_sampled.items()))
    needed = ", ".join(f"`{k}={v!r}`" for k, v in sorted((info.config_settings or {}).items()))
    if not needed:
        return [
            "",
            f"Found under {sampled}; it fails the same way with none of them (default path).",
        ]
    return ["", f"Needs exactly {needed} (bisected from the sampled {sampled}): the repro sets it."]


def _bisect(r: CheckResult) -> list[str]:
    b = r.bisect
    if not b:
        return [
            "Not run here: `python bisect_test.py` (in the finding folder) hands the repro to"
            " `CompilerBisector.do_bisect` as `test_fn() -> bool`; `torchsmith check --bisect`"
            " runs it in a worker."
        ]
    if not b.get("found"):
        return [f"`CompilerBisector` isolated nothing ({b.get('calls', '?')} runs)."]
    out = [
        f"`CompilerBisector`: backend `{b.get('backend')}`, subsystem `{b.get('subsystem')}`,"
        f" bisect number {b.get('bisect_number')} ({b.get('calls')} runs)."
    ]
    if b.get("debug_info"):
        out += ["", "```", str(b["debug_info"]).strip(), "```"]
    return out


def _error_logs(r: CheckResult) -> list[str]:
    ev = r.evidence
    if ev.get("traceback_tail") or ev.get("message"):
        exc = str(ev.get("exc_type") or r.verdict.value)
        msg = "\n".join(str(ev.get("message", "")).strip().splitlines()[:20])
        out = ["```", f"{exc}: {msg}".rstrip(), "```"]
        if ev.get("traceback_tail"):
            where = (
                f" (innermost torch frame: `{ev['torch_frame']}`)" if ev.get("torch_frame") else ""
            )
            out += [
                "",
                f"Traceback (tail){where}:",
                "",
                "```",
                ev["traceback_tail"].rstrip(),
                "```",
            ]
        return out
    figs = ev.get("figures") or {}
    if figs:
        rows = ["| | max abs | max rel | RMSE |", "|---|---|---|---|"]
        for label, key in (
            ("compiled vs fp64", "compiled_vs_fp64"),
            ("eager vs fp64", "eager_vs_fp64"),
            ("compiled vs eager", "compiled_vs_eager"),
        ):
            if key in figs:
                f = figs[key]
                rows.append(
                    f"| {label} | {f['max_abs']:.4g} | {f['max_rel']:.4g} | {f['rmse']:.4g} |"
                )
        extra = [
            f"Failing output: `{ev.get('output')}` ({figs.get('numel')} elements),"
            f" `same(eager, compiled, fp64_ref, tol={ev.get('tol', DEFAULT_TOL)})` is False."
        ]
        if ev.get("same_log"):
            extra += ["", "```", *[str(x) for x in ev["same_log"]], "```"]
        return [*rows, "", *extra]
    return ["```", r.reason, json.dumps(ev, indent=1, default=str)[:3000], "```"]


def checklist(finding: Finding) -> list[tuple[bool | None, str]]:
    """The pt2 template's fuzzer requirements, each checked against the finding's meta.json.
    ``None`` marks an item that does not apply to this kind of failure."""
    r, opts = finding.result, finding.options
    ev = r.evidence
    raw = finding.info.options
    tol_keys = [k for k in opts.config if "tol" in k.lower()]
    items: list[tuple[bool | None, str]] = []
    items.append(
        (
            opts.tol == DEFAULT_TOL and not tol_keys,
            f"Default tolerances: `tol={opts.tol:g}` (`same()`'s default is {DEFAULT_TOL:g})"
            + (f"; tolerance overrides in config: {tol_keys}" if tol_keys else ", no override"),
        )
    )
    numeric = r.verdict.is_numeric_mismatch
    if numeric:
        fp64 = ev.get("fp64")
        key = failure_key(r)
        ok = fp64 == "ok" and (
            "same-vs-fp64" in key or r.verdict is Verdict.NAN_MISMATCH or "non-float" in key
        )
        items.append(
            (
                ok,
                f"fp64 baseline: the float64 run is `{fp64}`; judged by"
                " `torch._dynamo.utils.same(eager, compiled, fp64_ref)`",
            )
        )
    else:
        items.append((None, f"fp64 baseline: not needed for a {r.verdict.value}"))
    fr = opts.config.get("inductor.fallback_random", True)
    items.append((fr is True, f"`torch._inductor.config.fallback_random = {fr}`"))
    seed = raw.get("seed", opts.seed)
    items.append(
        (
            isinstance(seed, int),
            f"Seeds: `torch.manual_seed({seed})` before building the model and before every run"
            + (f"; generator seed {finding.info.seed}" if finding.info.seed is not None else ""),
        )
    )
    if numeric:
        ops = {o.rsplit(".", 1)[-1] for o in source_ops(finding.program.source)}
        index_ops = sorted(ops & _INDEX_OPS)
        nonfloat = "non-float" in failure_key(r)
        items.append(
            (
                not (nonfloat and index_ops),
                "No comparison of max/min indices: the failing output is "
                + (
                    "an integer tensor and the program uses " + ", ".join(index_ops)
                    if nonfloat and index_ops
                    else (
                        "an integer tensor from no index-returning op"
                        if nonfloat
                        else "floating point"
                    )
                ),
            )
        )
    else:
        items.append(
            (None, f"No comparison of max/min indices: not a value comparison ({r.verdict.value})")
        )
    items.append((r.is_bug, "Eager is deterministic: two seeded eager runs gave identical outputs"))
    return items


def _artifacts(folder: Path, base: Path) -> list[str]:
    """Links (relative to ``base``, where the report lives) to what ``folder`` holds, including
    the troubleshooting artifacts of ``torchsmith debug`` (``debug/``, ``explain.json``)."""

    def link(p: Path) -> str:
        return os.path.relpath(p, base)

    out = []
    for name, what in (
        ("repro_plain.py", "plain repro (eager vs compiled vs float64)"),
        ("repro.py", "standalone repro with the harness (exits 1 while the bug shows)"),
        ("bisect_test.py", "CompilerBisector test_fn"),
        ("program.py", "program (canonical format)"),
        ("log.txt", "log"),
        ("reduce-log.txt", "reduction log"),
    ):
        if (folder / name).exists():
            out.append(f"- [{what}]({link(folder / name)})")
    explain = folder / "explain.json"
    if explain.exists():
        line = f"- [graph breaks (explain.json)]({link(explain)})"
        try:
            data = json.loads(explain.read_text())
            line += (
                f": {data.get('graph_count')} graph(s),"
                f" {data.get('graph_break_count')} graph break(s)"
            )
            code = [c for c in data.get("generated_code") or [] if (folder / c).exists()]
            if code:
                line += "; generated code: " + ", ".join(
                    f"[{Path(c).parent.name or c}]({link(folder / c)})" for c in code[:3]
                )
        except (OSError, ValueError, AttributeError):
            pass
        out.append(line)
    debug = folder / "debug"
    if debug.is_dir():
        index = debug / "index.json"
        target = index if index.exists() else debug
        out.append(f"- [compile artifacts (debug/)]({link(target)}): FX graphs, Inductor IR, code")
        tlparse = debug / "tlparse" / "index.html"
        if tlparse.exists():
            out.append(f"- [tlparse report]({link(tlparse)}): the TORCH_TRACE of the compile")
    return out


def render(finding: Finding, env: str | None = None) -> str:
    """The report for ``finding`` as Markdown."""
    mini = minimal_finding(finding)
    r, opts = mini.result, mini.options
    lines = [f"# {title(mini)}", "", "### 🐛 Describe the bug", ""]
    kw = ", ".join(f"{k}={v!r}" for k, v in opts.compile_kwargs().items())
    how = PATH_CALLS.get(opts.backend, f"torch.compile({kw})")
    lines.append(
        f"`{how}` gives **{r.verdict.value}** where eager runs fine"
        f" ({r.reason.strip()}). Found by torchsmith, a differential fuzzer comparing eager,"
        " torch.compile and a float64 eager run."
    )
    if opts.config:
        lines += [
            "",
            "Config: " + ", ".join(f"`{k}={v!r}`" for k, v in sorted(opts.config.items())),
        ]
    lines += _config_space(finding.info)
    red = mini.info.reduction
    if mini.info.reduced_from:
        fs = red.get("forward_statements", ["?", "?"])
        lines += [
            "",
            f"Reduced by `torchsmith reduce` from finding `{mini.info.reduced_from}`"
            f" ({fs[0]} → {fs[1]} statements in `forward`, same verdict, stage and"
            f" failure signature).",
        ]
    lines += [
        "",
        "#### Minimal repro",
        "",
        "```python",
        plain_script(
            mini.program, opts, inputs=str(r.evidence.get("output", "")).startswith("input")
        ).rstrip(),
        "```",
        "",
        "<details><summary>The same repro with torchsmith's harness (exits 1 while the bug"
        " shows; re-seeds every run, judges with <code>same()</code> against float64)</summary>",
        "",
        "```python",
        render_script(mini.program, opts, header=title(mini)).rstrip(),
        "```",
        "",
        "</details>",
        "",
    ]
    lines += ["#### Ablation", "", *_ablation(r), "", "#### Inductor bisect", "", *_bisect(r), ""]
    lines += ["#### Fuzzer checklist (pt2 template)", ""]
    items = checklist(mini)
    for ok, text in items:
        lines.append(f"- [{'x' if ok else ' '}] {text}" + (" (n/a)" if ok is None else ""))
    if all(ok is not False for ok, _ in items):
        lines += ["", "All fuzzer requirements hold: label `topic: fuzzer`."]
    links = _artifacts(mini.folder, finding.folder)
    if mini.folder != finding.folder:
        links += [
            ln.replace("- [", "- [original: ", 1)
            for ln in _artifacts(finding.folder, finding.folder)
        ]
    if links:
        lines += ["", "#### Artifacts", "", *links]
    lines += ["", "### Error logs", "", *_error_logs(r), ""]
    table = read_regress(finding.folder) or read_regress(mini.folder)
    if table:
        lines += [
            "### Torch versions",
            "",
            "The repro re-checked under other torch versions (`torchsmith regress`):",
            "",
            *markdown_lines(table),
            "",
        ]
    lines += [
        "### Versions",
        "",
        "```",
        (env if env is not None else collect_env()).rstrip(),
        "```",
    ]
    found = mini.info.torch
    import torch

    if found and found != torch.__version__:
        lines += ["", f"(The finding was recorded with torch {found}.)"]
    return "\n".join(lines) + "\n"


def write_report(folder: str | Path, *, html: bool = False, env: str | None = None) -> list[Path]:
    """Write ``report.md`` (and ``report.html``) into the finding folder; returns the paths."""
    finding = read_finding(folder)
    md = render(finding, env=env)
    out = [finding.folder / REPORT_MD]
    out[0].write_text(md)
    if html:
        from torchsmith.report.html import markdown_to_html

        path = finding.folder / REPORT_HTML
        path.write_text(markdown_to_html(md, title=title(minimal_finding(finding))))
        out.append(path)
    return out
