"""Cheaper compiles where they cannot hide bugs: Inductor settings, time against known failures.

Checks a fixed corpus of programs that fail on the torch under test, once per setting, and
prints for each setting its compile time (torch's own ``compile_times`` counters: total and the
C++ compile) and wall time against the baseline, and how many of the corpus still fail the same
way. A setting is adoptable only when it is faster and every program still fails (the issue's
rule: "adopt only what keeps every one of them failing").

The corpus (all judged by the same ``check`` as a campaign, localization off):

* ``bench/issues/`` cases that ``cases.json`` marks buggy in this release and that the baseline
  catches;
* ``bench/found/`` (the three opt-in-pass bugs the rewrites family found on 2.13);
* the findings of a campaign folder (``--findings DIR``: each ``program.py`` with its options);
* Inductor's own planted faults (``cpp.inject_relu_bug_TESTING_ONLY``: accuracy, compile error,
  runtime error) on the bundled linear+relu example.

Each setting gets a fresh worker and its own empty Inductor cache (``TORCHINDUCTOR_CACHE_DIR``),
warmed with one untimed check (imports, the precompiled header), so no setting reuses another's
kernels.

    python bench/compile_settings.py [--python PY] [--findings /work/hunt213/findings]
        [--settings baseline O0 no-fx-cache ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from torchsmith.check import check_program  # noqa: E402
from torchsmith.execute import protocol  # noqa: E402
from torchsmith.execute.worker import Worker  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.load import load_program  # noqa: E402

EXAMPLE = HERE.parent / "src" / "torchsmith" / "examples" / "linear_relu.py"

#: name -> (inductor config overrides, worker environment overrides, what it changes)
SETTINGS: dict[str, tuple[dict[str, Any], dict[str, str], str]] = {
    "baseline": (
        {},
        {},
        "Inductor's defaults (-O3, vectorized, FX graph cache on, 1 thread, gcc's own linker,"
        " one g++ run per kernel)",
    ),
    "O0": (
        {"inductor.aot_inductor.debug_compile": True},
        {},
        "C++ kernels at -O0 (with -g): the compiler's cheapest optimization level",
    ),
    "no-fx-cache": ({"inductor.fx_graph_cache": False}, {}, "no FX graph cache keys or writes"),
    "no-simd": ({"inductor.cpp.simdlen": 0}, {}, "scalar C++ kernels (no at::vec code)"),
    "no-pch": (
        {"inductor.cpp_cache_precompile_headers": False},
        {},
        "no precompiled header (expected slower: checks the default)",
    ),
    "threads-2": ({}, {"TORCHINDUCTOR_COMPILE_THREADS": "2"}, "a 2-process compile pool"),
    "gold": ({}, {"TORCHSMITH_LINKER": "gold"}, "kernels linked by GNU gold, not GNU ld (bfd)"),
    "batch": (
        {},
        {"TORCHSMITH_KERNEL_BATCH": "1"},
        "a graph's kernels built in one g++ run (torchsmith.execute.kernel_batch)",
    ),
    "torchsmith": (
        {},
        {"TORCHSMITH_LINKER": "gold", "TORCHSMITH_KERNEL_BATCH": "1"},
        "what a torchsmith worker does by default: gold and batched kernel builds",
    ),
}


def _issues_module():
    spec = importlib.util.spec_from_file_location("bench_issues", HERE / "issues.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def corpus(version: str, findings: Path | None) -> list[dict[str, Any]]:
    """The known-failing programs: name, path, option changes."""
    issues = _issues_module()
    items: list[dict[str, Any]] = []
    for case in json.loads((HERE / "issues" / "cases.json").read_text()):
        if issues.expectation(case, version)[0] == "buggy":
            items.append({"name": case["file"][:-3], "path": HERE / "issues" / case["file"]})
    for path in sorted((HERE / "found").glob("*.py")):
        items.append({"name": path.stem, "path": path})
    if findings:
        for folder in sorted(p for p in findings.iterdir() if (p / "program.py").exists()):
            opts = json.loads((folder / "meta.json").read_text()).get("options", {})
            keep = {k: opts[k] for k in ("grad", "dynamic", "fullgraph", "dtype") if k in opts}
            items.append({"name": folder.name, "path": folder / "program.py", "opts": keep})
    for fault in ("accuracy", "compile_error", "runtime_error"):
        cfg = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": fault}
        items.append({"name": f"inject-{fault}", "path": EXAMPLE, "config": cfg})
    return items


def run_setting(
    name: str, items: list[dict[str, Any]], python: str | None, timeout: float, work: Path
) -> list[dict[str, Any]]:
    config, env_over, _ = SETTINGS[name]
    # The baseline is Inductor as it ships: gcc's default linker, one g++ run per kernel.
    # A setting changes only what it names.
    base_env = {**os.environ, "TORCHSMITH_LINKER": "default", "TORCHSMITH_KERNEL_BATCH": "0",
                **env_over}  # fmt: skip
    env = protocol.worker_env(python=python, base=base_env)
    env.update(TORCHINDUCTOR_CACHE_DIR=str(work / f"cache-{name}"))
    base = CheckOptions(timeout=timeout, localize=False)
    rows = []
    with Worker(env=env, python=python, log_dir=work / f"log-{name}") as worker:
        worker.start()
        check_program(load_program(EXAMPLE), base.replace(config=dict(config)), worker)  # warm
        for it in items:
            opts = base.replace(**it.get("opts", {}), config={**config, **it.get("config", {})})
            t0 = time.perf_counter()
            try:
                r = check_program(load_program(it["path"]), opts, worker)
                verdict, bug, t = r.verdict.value, r.is_bug, r.timings
            except Exception as e:  # a load or tool failure: recorded, never a verdict
                verdict, bug, t = f"error: {str(e)[:60]}", False, {}
            rows.append({
                "name": it["name"], "verdict": verdict, "bug": bug,
                "wall": time.perf_counter() - t0,
                "compile": t.get("compile total", 0.0), "cxx": t.get("compile c++ compile", 0.0),
            })  # fmt: skip
            print(f"  {name:12s} {it['name']:44s} {verdict:14s} {rows[-1]['wall']:6.1f}s",
                  file=sys.stderr, flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=None, help="Interpreter of the torch to judge.")
    ap.add_argument("--findings", type=Path, default=None, help="A campaign's findings folder.")
    ap.add_argument("--settings", nargs="*", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--only", nargs="*", default=None, help="Corpus names containing these.")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.findings and not args.findings.is_dir():
        ap.error(f"--findings {args.findings}: not a folder (a campaign's findings/)")
    settings = ["baseline"] + [s for s in args.settings if s != "baseline"]
    with Worker(python=args.python) as probe:
        probe.start()
        version = probe.torch_version or "?"
    items = corpus(version, args.findings)
    if args.only:
        items = [it for it in items if any(o in it["name"] for o in args.only)]
    print(f"torch {version}: {len(items)} programs x {len(settings)} settings", flush=True)
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="torchsmith-settings-") as tmp:
        base = run_setting("baseline", items, args.python, args.timeout, Path(tmp))
        # Only what the baseline catches can be lost: the other settings check just those.
        missed = [it["name"] for it, r in zip(items, base, strict=True) if not r["bug"]]
        base = [r for r in base if r["bug"]]
        items = [it for it in items if it["name"] not in missed]
        results["baseline"] = base
        for name in settings[1:]:
            results[name] = run_setting(name, items, args.python, args.timeout, Path(tmp))
    failing = list(range(len(base)))
    print(f"\ncorpus: {len(items) + len(missed)} programs, {len(failing)} fail under the"
          f" baseline and are checked under every setting; not counted (the baseline misses"
          f" them, so they cannot be lost): {', '.join(missed) or '-'}")  # fmt: skip

    def total(rows: list[dict[str, Any]], key: str) -> float:
        return sum(rows[i][key] for i in failing)

    print(f"{'setting':<13}{'compile s':>10}{'c++ s':>8}{'wall s':>8}{'wall x':>8}"
          f"{'still failing':>15}  lost (verdict now)")  # fmt: skip
    summary = {}
    for name, rows in results.items():
        kept = [i for i in failing if rows[i]["bug"] and rows[i]["verdict"] == base[i]["verdict"]]
        lost = [f"{rows[i]['name']} ({rows[i]['verdict']})" for i in failing if i not in kept]
        ratio = total(rows, "wall") / total(base, "wall")
        print(f"{name:<13}{total(rows, 'compile'):>10.1f}{total(rows, 'cxx'):>8.1f}"
              f"{total(rows, 'wall'):>8.1f}{ratio:>8.2f}{len(kept):>9}/{len(failing):<5}"
              f"  {', '.join(lost) or '-'}")  # fmt: skip
        summary[name] = {"compile_s": total(rows, "compile"), "cxx_s": total(rows, "cxx"),
                         "wall_s": total(rows, "wall"), "wall_ratio": ratio,
                         "kept": len(kept), "failing": len(failing), "lost": lost}  # fmt: skip
    adopt = [n for n, s in summary.items() if n != "baseline" and s["wall_ratio"] < 0.95
             and not s["lost"]]  # fmt: skip
    print(f"adoptable (>= 5 % faster, nothing lost): {', '.join(adopt) or 'none'}")
    if args.json:
        args.json.write_text(json.dumps({"torch": version, "summary": summary,
                                         "rows": results}, indent=1, default=str))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
