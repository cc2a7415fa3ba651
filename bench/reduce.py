"""How small and how faithful are reductions of real injected faults?

Builds findings with real faults, reduces each one and measures what a compiler engineer gets:

* **relu**: Inductor's injected relu accuracy bug (``inductor.cpp.inject_relu_bug_TESTING_ONLY=
  accuracy``: every relu output is off by one) buried in generated programs of 10 to 30 ops;
* **dynamo**: Dynamo's injected ``BUILD_SET`` fault (``fullgraph=True``) in generated programs
  of 10 to 30 ops with a set literal inserted at a random place in ``forward``.

For each finding: statements in ``forward`` before and after, lines, time, candidates tested,
whether the reduced finding keeps verdict and stage, and whether its ``repro.py`` run alone in a
fresh interpreter still exits 1 (goal: 100 %).

Beside it, on the same (unreduced) findings, PyTorch's own minifier (``torchsmith minify``:
``TORCHDYNAMO_REPRO_AFTER=aot|dynamo``, repro level 4 for wrong values, queries in-process,
``--minifier-budget`` seconds at most): statements left in the minified graph's ``forward``
(ATen ops after AOT, torch ops after Dynamo), seconds (the armed run plus the minifier), and
whether ``check`` on it still gives the same verdict and stage; or "gave up" with the reason.

    python bench/reduce.py -n 6 --dynamo 2
    python bench/reduce.py -n 2 --dynamo 1 --budget 90 --workers 2 --minifier-budget 300
    python bench/reduce.py -n 2 --dynamo 1 --no-minifier
"""

from __future__ import annotations

import argparse
import ast
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from torchsmith.check import check_program  # noqa: E402
from torchsmith.execute.worker import Worker  # noqa: E402
from torchsmith.finding import Finding, write_finding  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.format import Program  # noqa: E402
from torchsmith.reduce import reduce_program, write_reduced  # noqa: E402
from torchsmith.reduce.source import forward_statements, unparse  # noqa: E402
from torchsmith.verdict import Stage  # noqa: E402

RELU_OPS = (
    "relu,add,mul,sub,div,sigmoid,tanh,exp,sin,cos,abs,neg,sum,mean,amax,linear,matmul,cat,"
    "reshape,transpose,permute,softmax,layer_norm,where,clamp,square,log1p,cumsum,flatten,unsqueeze"
)
RELU = CheckOptions(config={"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"})
DYNAMO = CheckOptions(
    fullgraph=True, config={"dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY": True}
)
MINIFIER_NOTE = (
    "pytorch minifier: statements left in its graph's forward / seconds (armed run + minifier) /"
    " whether check on its repro gives the same verdict and stage. Its statements are graph"
    " nodes (ATen ops after AOT), ours are source statements: a unit each, not the same unit."
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("-n", type=int, default=6, help="relu findings (default 6)")
    p.add_argument("--dynamo", type=int, default=2, help="Dynamo findings (default 2)")
    p.add_argument("--seed", type=int, default=0, help="first generator seed (default 0)")
    p.add_argument("--min-ops", type=int, default=10)
    p.add_argument("--max-ops", type=int, default=30)
    p.add_argument("--budget", type=float, default=120.0, help="seconds of search per finding")
    p.add_argument("--workers", type=int, default=1, help="workers per reduction (default 1)")
    p.add_argument("--out", type=Path, default=None, help="findings folder (default: a temp dir)")
    p.add_argument(
        "--minifier-budget",
        type=float,
        default=240.0,
        help="seconds PyTorch's minifier may run per finding (default 240)",
    )
    p.add_argument("--no-minifier", action="store_true", help="skip PyTorch's minifier column")
    return p.parse_args(argv)


def _size(seed: int, lo: int, hi: int) -> int:
    return lo + random.Random(seed).randrange(hi - lo + 1)


def relu_program(seed: int, lo: int, hi: int) -> Program | None:
    from torchsmith.generate.graph import GenOptions, generate

    k = _size(seed, lo, hi)
    prog = generate(seed, GenOptions(max_nodes=k, min_nodes=k, ops=RELU_OPS, dtypes=("float32",)))
    model_src = prog.source.split("class Model", 1)[1]
    return prog if "relu" in model_src else None


def dynamo_program(seed: int, lo: int, hi: int) -> Program:
    """A generated program with ``keys = {0, 1}`` (a BUILD_SET) at a random place in forward."""
    from torchsmith.generate.graph import GenOptions, generate

    k = _size(seed, lo, hi)
    prog = generate(seed, GenOptions(max_nodes=k, min_nodes=k, dtypes=("float32",)))
    tree = ast.parse(prog.source)
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
    fwd = next(n for n in model.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
    at = random.Random(seed).randrange(len(fwd.body))
    fwd.body.insert(at, ast.parse("keys = {0, 1}").body[0])
    return Program(source=unparse(tree), name=f"gen_{seed}_set", origin="generated")


def collect(kind: str, count: int, args: argparse.Namespace, worker: Worker, root: Path) -> list:
    """``count`` findings of ``kind``, scanning seeds from ``args.seed``."""
    found: list[Finding] = []
    seed = args.seed
    opts = RELU if kind == "relu" else DYNAMO
    want = Stage.INDUCTOR if kind == "relu" else Stage.DYNAMO
    while len(found) < count and seed < args.seed + 40 * max(count, 1):
        prog = (
            relu_program(seed, args.min_ops, args.max_ops)
            if kind == "relu"
            else dynamo_program(seed, args.min_ops, args.max_ops)
        )
        seed += 1
        if prog is None:
            continue
        r = check_program(prog, opts, worker)
        if r.is_bug and r.stage is want:
            found.append(write_finding(root, prog, r, seed=seed - 1, generator="bench/reduce.py"))
    return found


def runs_alone(folder: Path) -> bool:
    proc = subprocess.run(
        [sys.executable, str(folder / "repro.py")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=folder,
    )
    return proc.returncode == 1 and "VERDICT:" in proc.stdout


def pytorch_minifier(f: Finding, budget: float, worker: Worker) -> dict:
    """PyTorch's minifier on finding ``f`` (``torchsmith minify``): a column of the table."""
    from torchsmith.troubleshoot import TroubleshootError, minify_finding

    try:
        m = minify_finding(f.folder, time_budget=budget, worker=worker)
    except (TroubleshootError, ValueError) as e:
        return {"status": "gave up", "reason": str(e)[:300], "statements": None, "seconds": None}
    secs = m["seconds"]
    return {
        "status": m["status"],
        "reason": m["reason"],
        "statements": m["statements"],
        "seconds": round(secs.get("run", 0.0) + secs.get("minify", 0.0), 1),
        "same": m["same_failure"],
        "after": m["after"],
        "nodes": m["nodes"],
    }


def minifier_cell(m: dict | None) -> str:
    if m is None:
        return "-"
    if m["statements"] is None:
        return "gave up"
    fails = "yes" if m.get("same") else "NO"
    cut = " (cut)" if m["status"] == "partial" else ""
    return f"{m['statements']}{cut}, {m['seconds']:.0f} s, same {fails}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console(width=150)
    root = args.out or Path(tempfile.mkdtemp(prefix="torchsmith-bench-reduce-"))
    rows = []
    with Worker() as worker:
        t0 = time.monotonic()
        findings = [("relu", f) for f in collect("relu", args.n, args, worker, root)]
        findings += [("dynamo", f) for f in collect("dynamo", args.dynamo, args, worker, root)]
        console.print(f"{len(findings)} findings in {time.monotonic() - t0:.0f} s under {root}")
        for kind, f in findings:
            opts = RELU if kind == "relu" else DYNAMO
            res = reduce_program(
                f.program,
                opts,
                workers=args.workers,
                worker=worker,
                time_budget=args.budget,
                result=f.result,
                verify_script=False,
            )
            new = write_reduced(f, res)
            same = bool(
                new
                and new.result.verdict is f.result.verdict
                and new.result.stage is f.result.stage
            )
            alone = runs_alone(new.folder) if new else runs_alone(f.folder)
            rows.append(
                {
                    "kind": kind,
                    "id": f.id,
                    "before": forward_statements(f.program.source),
                    "after": res.forward_after if new else forward_statements(f.program.source),
                    "lines": (
                        len(f.program.source.splitlines()),
                        len(res.reduced.source.splitlines()),
                    ),
                    "seconds": res.seconds,
                    "tested": res.stats.get("tested", 0),
                    "same": same,
                    "alone": alone,
                    "verdict": f.result.verdict.value,
                }
            )
            r = rows[-1]
            console.print(
                f"{kind} {f.id}: forward {r['before']} -> {r['after']}, {r['seconds']:.0f} s,"
                f" same failure {same}, repro alone {alone}"
            )
            r["pytorch"] = None
            if not args.no_minifier:
                r["pytorch"] = m = pytorch_minifier(f, args.minifier_budget, worker)
                why = m["reason"].removeprefix("gave up: ")
                console.print(
                    f"  pytorch minifier: {minifier_cell(m)}" + (f": {why}" if why else "")
                )
    table = Table(
        "kind",
        "finding",
        "verdict",
        "forward",
        "lines",
        "time s",
        "tested",
        "same",
        "alone",
        "pytorch minifier",
    )
    for r in rows:
        table.add_row(
            r["kind"],
            r["id"],
            r["verdict"],
            f"{r['before']} -> {r['after']}",
            f"{r['lines'][0]} -> {r['lines'][1]}",
            f"{r['seconds']:.0f}",
            str(r["tested"]),
            "yes" if r["same"] else "NO",
            "yes" if r["alone"] else "NO",
            minifier_cell(r["pytorch"]),
        )
    console.print(table)
    if rows:
        after = [r["after"] for r in rows]
        secs = [r["seconds"] for r in rows]
        share = 100.0 * sum(r["alone"] for r in rows) / len(rows)
        same = 100.0 * sum(r["same"] for r in rows) / len(rows)
        console.print(
            f"reduced forward statements: median {statistics.median(after):g}, max {max(after)}"
            f" (from median {statistics.median(r['before'] for r in rows):g});"
            f" median time {statistics.median(secs):.0f} s; same failure {same:.0f} %;"
            f" repro.py alone reproduces {share:.0f} % (goal 100 %)"
        )
        for kind in ("relu", "dynamo"):
            sub = [r for r in rows if r["kind"] == kind]
            if sub:
                console.print(
                    f"  {kind}: n={len(sub)}, median after {statistics.median(r['after'] for r in sub):g},"
                    f" max {max(r['after'] for r in sub)}, median {statistics.median(r['seconds'] for r in sub):.0f} s"
                )
    minified = [r for r in rows if r["pytorch"] is not None]
    if minified:
        console.print(MINIFIER_NOTE, style="dim")
        for r in minified:
            if r["pytorch"]["reason"]:
                why = r["pytorch"]["reason"].removeprefix("gave up: ")
                console.print(f"  {r['id']}: pytorch minifier {r['pytorch']['status']}: {why}")
        done = [r for r in minified if r["pytorch"]["statements"] is not None]
        ok = [r for r in done if r["pytorch"].get("same")]
        ours = sum(r["after"] <= r["pytorch"]["statements"] for r in ok)
        faster = sum(r["seconds"] < r["pytorch"]["seconds"] for r in ok)
        console.print(
            f"pytorch minifier: {len(done)}/{len(minified)} produced a repro, {len(ok)} still"
            f" fail the same way, {len(minified) - len(done)} gave up; where both reproduce,"
            f" ours has no more statements on {ours}/{len(ok)} and is faster on"
            f" {faster}/{len(ok)}"
        )
    console.print("command: python " + " ".join(shlex.quote(a) for a in sys.argv))
    ok = rows and all(r["alone"] and r["same"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
