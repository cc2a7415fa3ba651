"""What the campaign page shows, as plain data: read from ``campaign.db`` and the finding folders.

:func:`campaign_data` opens the store read-only (a running campaign is fine) and returns one
JSON-able dict; :mod:`torchsmith.report.page` turns it into HTML. Nothing here plots or writes.

Per-op yield needs the ops of every checked program, not only of the findings; the store keeps
per-program op *counts*, so the ops come from, in order: an ``op_names`` column where a store
has one; else re-generating the campaign's programs when its generator is the pure ``graph``
generator (deterministic, runs no program code), sampled within a time budget and kept only
where the digest matches the recorded one; else none (the page then shows finding counts per
op without a rate). Findings' ops are always exact (from their ``program.py``).
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torchsmith.campaign.store import Store
from torchsmith.campaign.summary import summarize
from torchsmith.finding import FINDINGS, Finding, read_finding
from torchsmith.program.ops import source_ops
from torchsmith.regress import read_regress

#: Generators whose programs the page may re-generate: pure, in-process, ignore the context.
PURE_GENERATORS = ("graph",)
#: How many ops the per-op plot lists.
TOP_OPS = 20


def timeline(rows: list[dict[str, Any]], start: float | None, bug_first: dict[int, str]) -> dict:
    """Programs per minute in time bins, and cumulative findings and distinct bugs over time.

    ``start`` is the campaign's creation time (the first bin includes start-up); ``bug_first``
    maps the seed of each bug's first finding to its readable signature.
    """
    times = sorted(r["recorded"] for r in rows)
    if not times:
        return {"rate": [], "findings": [], "bugs": [], "new_bugs": []}
    t0 = min(start or times[0], times[0])
    t1 = times[-1]
    nbins = max(1, min(40, len(times) // 3))
    width = max((t1 - t0) / nbins, 1.0)
    counts = Counter(min(nbins - 1, int((t - t0) / width)) for t in times)
    rate = [(t0 + i * width, round(counts.get(i, 0) * 60.0 / width, 2)) for i in range(nbins)]
    rate.append((t0 + nbins * width, rate[-1][1]))  # the last bin's end, for a step plot
    findings, bugs, new_bugs = [(t0, 0)], [(t0, 0)], []
    nf = nb = 0
    for r in sorted(rows, key=lambda r: r["recorded"]):
        if r["category"] != "bug":
            continue
        nf += 1
        findings.append((r["recorded"], nf))
        if r["seed"] in bug_first:
            nb += 1
            bugs.append((r["recorded"], nb))
            new_bugs.append((r["recorded"], nb, bug_first[r["seed"]]))
    findings.append((t1, nf))
    bugs.append((t1, nb))
    return {"rate": rate, "findings": findings, "bugs": bugs, "new_bugs": new_bugs}


def _finding_ops(findings_dir: Path, finding_id: str) -> list[str]:
    path = findings_dir / finding_id / "program.py"
    try:
        return source_ops(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return []


def _sample_ops(
    checked: list[dict[str, Any]],
    params: dict[str, Any],
    budget_s: float,
    generator: Any = None,
) -> tuple[dict[int, list[str]], str]:
    """Ops of checked programs: from an ``op_names`` column, else re-generated (pure generators
    only, within ``budget_s``, digest-checked). Returns (seed -> ops, where they came from)."""
    stored = {
        r["seed"]: json.loads(r["op_names"]) for r in checked if r.get("op_names") is not None
    }
    if stored:
        return stored, "stored"
    name = params.get("generator")
    if generator is None:
        if name not in PURE_GENERATORS or budget_s <= 0:
            return {}, f"not re-generated (the {name!r} generator is not pure)"
        from torchsmith.generate.protocol import get_generator

        try:
            generator = get_generator(name, **(params.get("gen_options") or {}))
        except Exception as e:  # a generator that no longer builds: no op rates, no failure
            return {}, f"not re-generated ({type(e).__name__}: {e})"
    from torchsmith.generate.protocol import GenContext

    order = list(checked)
    random.Random(0).shuffle(order)
    deadline = time.monotonic() + budget_s
    out: dict[int, list[str]] = {}
    for r in order:
        if time.monotonic() > deadline:
            break
        try:
            program = generator.generate(r["seed"], GenContext())
        except Exception:
            continue
        if program is not None and program.digest == r["digest"]:
            out[r["seed"]] = source_ops(program.source)
    return out, "re-generated"


def op_yield(
    rows: list[dict[str, Any]],
    bug_of: dict[int, str],
    findings_dir: Path,
    params: dict[str, Any],
    budget_s: float = 10.0,
    generator: Any = None,
) -> dict[str, Any]:
    """Per op: compiler-bug findings, distinct bugs, programs using it (exact, or estimated
    from a sample) and findings per thousand programs that use it."""
    checked = [r for r in rows if r["status"] == "checked"]
    found: Counter[str] = Counter()
    bugs: dict[str, set[str]] = {}
    for r in rows:
        if r["category"] == "bug" and r["finding"]:
            for op in _finding_ops(findings_dir, r["finding"]):
                found[op] += 1
                bugs.setdefault(op, set()).add(bug_of.get(r["seed"], r["signature"] or ""))
    ops_of, source = _sample_ops(checked, params, budget_s, generator)
    share: Counter[str] = Counter(op for ops in ops_of.values() for op in set(ops))
    n, k = len(checked), len(ops_of)
    table = []
    for op in sorted(set(found) | (set(share) if k else set())):
        programs = round(share[op] * n / k) if k else None
        per_k = round(1000.0 * found[op] / programs, 1) if programs else None
        table.append(
            {
                "op": op,
                "findings": found[op],
                "bugs": len(bugs.get(op, ())),
                "programs": programs,
                "per_k": per_k,
            }
        )
    table = [t for t in table if t["findings"] or t["programs"]]
    table.sort(key=lambda t: (-(t["per_k"] or 0), -t["findings"], t["op"]))
    return {
        "source": source if k or source != "re-generated" else "re-generated, none matched",
        "sampled": k,
        "checked": n,
        "exact": k == n and n > 0,
        "rows": table,
    }


def _versions(params: dict[str, Any], findings: list[Finding]) -> dict[str, str]:
    try:
        mine = importlib.metadata.version("torchsmith")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout
        mine = "unknown"
    import torch

    recorded = Counter(f.info.torch or "?" for f in findings)
    out = {
        "torchsmith": mine,
        "worker Python": params.get("python") or f"{sys.executable} (this one)",
        "torch here": torch.__version__,
        "Python here": platform.python_version(),
        "platform": platform.platform(),
    }
    if recorded:
        out["torch in findings"] = ", ".join(f"{v} ({n})" for v, n in recorded.most_common())
    return out


def _bug_entry(
    bug: dict[str, Any],
    findings_dir: Path,
    first_recorded: float | None,
    render_report: Callable[[Finding], str] | None,
) -> dict[str, Any]:
    """One distinct bug: its figures, minimal repro, report Markdown and version table."""
    entry = dict(bug, first_recorded=first_recorded, repro=None, report_md=None, regress=None)
    if not bug.get("smallest"):
        return entry
    try:
        finding = read_finding(findings_dir / bug["smallest"])
    except (OSError, ValueError):
        return entry
    from torchsmith.report.markdown import minimal_finding

    mini = minimal_finding(finding)
    red = bug.get("reduced_finding")
    if red and mini is finding:
        for folder in (findings_dir / red, Path(red)):
            if (folder / "meta.json").exists():
                mini = read_finding(folder)
                break
    entry["repro"] = mini.program.source  # the program; repro.py wraps it in the harness
    entry["repro_finding"] = mini.id
    entry["repro_dir"] = str(mini.folder)
    entry["finding_dir"] = str(finding.folder)
    entry["regress"] = read_regress(finding.folder) or read_regress(mini.folder)
    if render_report is not None:
        try:
            entry["report_md"] = render_report(finding)
        except Exception as e:  # a broken finding must not break the page
            entry["report_md"] = f"(the report could not be rendered: {type(e).__name__}: {e})"
    return entry


def campaign_data(
    folder: str | Path,
    *,
    known: set[str] | None = None,
    op_budget_s: float = 10.0,
    generator: Any = None,
    env: str | None = None,
    reports: bool = True,
) -> dict[str, Any]:
    """Everything the campaign page shows, from ``folder``'s store and finding folders.

    ``op_budget_s`` bounds re-generating programs for per-op rates (``generator``: the object
    to use instead of the campaign's named one); ``env`` is the Versions text of the embedded
    reports (default: ``collect_env`` once, a few seconds); ``reports=False`` leaves them out.
    """
    folder = Path(folder)
    findings_dir = folder / FINDINGS
    with Store(folder, readonly=True) as store:
        summary = summarize(store, known)
        rows = store.rows()
        all_bugs = store.bugs(known)
        raw_params = store.params()
    params = summary["params"]
    bug_of = {s: b.signature for b in all_bugs if b.category == "bug" for s in b.seeds}
    bug_first = {b.first_seed: b.readable for b in all_bugs if b.category == "bug"}
    recorded_at = {r["seed"]: r["recorded"] for r in rows}
    checked = [r for r in rows if r["status"] == "checked"]
    verdicts = Counter(r["verdict"] or r["status"] for r in rows)
    stages: dict[str, Counter[str]] = {}
    stage_bugs: dict[str, set[str]] = {}
    for r in rows:
        if r["category"] == "bug":
            stage = r["stage"] or "unknown"
            stages.setdefault(stage, Counter())[r["verdict"]] += 1
            stage_bugs.setdefault(stage, set()).add(bug_of.get(r["seed"], r["signature"]))
    compile_s: dict[str, list[float]] = {"pass": [], "compiler bug": [], "other": []}
    for r in checked:
        t = (r["timings"] or {}).get("compiled")
        if t:
            group = "compiler bug" if r["category"] == "bug" else r["verdict"]
            compile_s[group if group in compile_s else "other"].append(float(t))
    families = []
    for f in summary["families"]:
        n = f["programs"] or 0
        families.append(
            {
                **f,
                "findings_per_k": round(1000.0 * f["findings"] / n, 1) if n else 0.0,
                "bugs_per_k": round(1000.0 * f["bugs"] / n, 1) if n else 0.0,
            }
        )
    render_report = None
    if reports:
        from torchsmith.report.markdown import collect_env, render

        def render_report(f: Finding) -> str:
            return render(f, env=env if env is not None else collect_env())

    bug_entries = [
        _bug_entry(b, findings_dir, recorded_at.get(b["first_seed"]), render_report)
        for b in summary["bug_list"]
    ]
    shown = []
    for e in bug_entries:
        if e.get("finding_dir"):
            try:
                shown.append(read_finding(e["finding_dir"]))
            except (OSError, ValueError):
                pass
    return {
        "folder": str(folder),
        "name": folder.resolve().name,
        "generated": time.time(),
        "summary": {k: v for k, v in summary.items() if k not in ("bug_list", "families")},
        "sessions": raw_params.get("sessions"),
        "created": raw_params.get("created"),
        "params": params,
        "versions": _versions(params, shown),
        "timeline": timeline(rows, raw_params.get("created"), bug_first),
        "verdicts": dict(verdicts.most_common()),
        "stages": {s: dict(c) for s, c in sorted(stages.items())},
        "stage_bugs": {s: len(b) for s, b in sorted(stage_bugs.items())},
        "families": families,
        "ops": op_yield(rows, bug_of, findings_dir, params, op_budget_s, generator),
        "compile_s": compile_s,
        "bugs": bug_entries,
        "faults": summary["fault_list"],
    }
