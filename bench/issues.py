"""The real-repro bench: does ``check`` give the verdict PyTorch's maintainers gave?

``bench/issues/`` holds scripts written from public PyTorch issues (``cases.json``: issue,
category, the verdict and stage maintainers gave, the releases where each is buggy and fixed).
Each script is checked as it stands (``check`` takes pasted scripts) in crash-safe workers
under ``--python`` (a venv with the torch release to judge), and the result is scored against
what the case says of that release:

* imported: the script could be read and run (a verdict other than a load failure);
* right verdict: a buggy case gets its kind of failure (wrong result: mismatch, nan-mismatch or
  meta-mismatch; crash; imprecise; ...); a fixed or not-a-bug case gets no bug verdict;
* right stage: a buggy case localized where maintainers located it;
* false alarms: a bug verdict on a case fixed in that release, or on a not-a-bug case.

    python bench/issues.py --python /path/to/venv-2.6/bin/python [--only i143729 ...]

Prints one row per case and the totals; ``--json FILE`` keeps the rows. Not a test: the second
venv is several GB and a run takes tens of minutes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from torchsmith.check import check_program  # noqa: E402
from torchsmith.execute.worker import Worker  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.format import ProgramFormatError  # noqa: E402
from torchsmith.program.load import load_program  # noqa: E402

WRONG = {"mismatch", "nan-mismatch", "meta-mismatch"}
KIND = {v: "wrong result" for v in WRONG} | {"crash": "crash", "imprecise": "imprecise"}
KIND |= {"died": "died", "timeout": "hang"}


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text.split("+")[0])[:3])


def expectation(case: dict[str, Any], version: str) -> tuple[str, str | None]:
    """(``buggy`` | ``fixed`` | ``not-a-bug`` | ``unknown``, expected stage) for a release."""
    if case["category"] == "not-a-bug":
        return "not-a-bug", None
    v = version_tuple(version)
    buggy = [version_tuple(b) for b in case.get("buggy_in") or []]
    fixed = case.get("fixed_in")
    if fixed and v >= version_tuple(fixed):
        return "fixed", None
    if v in buggy or (not fixed and buggy and v >= min(buggy)):
        return "buggy", case["expected"].get("stage")
    return "unknown", None


def score(case: dict[str, Any], version: str, verdict: str | None, stage: str | None, bug: bool):
    state, want_stage = expectation(case, version)
    row: dict[str, Any] = {"state": state}
    if verdict is None:
        row.update(imported=False, right_verdict=False, right_stage=False, false_alarm=False)
        return row
    row["imported"] = True
    if state == "buggy":
        want = case["expected"]["verdict"]
        row["right_verdict"] = KIND.get(verdict, verdict) == KIND.get(want, want)
        row["right_stage"] = row["right_verdict"] and (want_stage is None or stage == want_stage)
        row["false_alarm"] = False
    elif state in ("fixed", "not-a-bug"):
        row["right_verdict"] = row["right_stage"] = not bug
        row["false_alarm"] = bug
    else:
        row["right_verdict"] = row["right_stage"] = None
        row["false_alarm"] = False
    return row


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable, help="Interpreter of the torch to judge.")
    ap.add_argument("--cases", type=Path, default=HERE / "issues" / "cases.json")
    ap.add_argument("--only", nargs="*", default=None, help="File names or issue numbers.")
    ap.add_argument("--timeout", type=float, default=300.0, help="Seconds per worker job.")
    ap.add_argument("--memory-mb", type=int, default=8192)
    ap.add_argument("--json", type=Path, default=None, help="Write the rows here.")
    ap.add_argument(
        "--rows", type=Path, default=None,
        help="Append each row here as it is done (JSON lines); rows already there are kept"
        " and their cases skipped (a long run can be resumed).",
    )  # fmt: skip
    ap.add_argument(
        "--convert-only", action="store_true",
        help="Only import each script into the canonical format (AST, nothing run) and print"
        " how many convert, with the reason for each that does not.",
    )  # fmt: skip
    ap.add_argument(
        "--agree", action="store_true",
        help="Check each script as it stands and as imported; print whether the two verdicts"
        " (and stages) agree.",
    )  # fmt: skip
    return ap.parse_args(argv)


def convert_only(cases: list[dict[str, Any]], folder: Path) -> int:
    """Import every case (AST only) and print the count that converts."""
    from torchsmith.program.foreign import import_script

    ok = 0
    for case in cases:
        path = folder / case["file"]
        try:
            import_script(path.read_text(), name=path.stem, path=str(path))
            ok += 1
        except ProgramFormatError as e:
            print(f"XX {case['file']}: {e}")
    print(f"converted {ok} of {len(cases)} scripts")
    return 0


def agree(cases: list[dict[str, Any]], folder: Path, options: CheckOptions, python: str) -> int:
    """Check each script as a script and as imported; count the verdicts (and stages) that agree."""
    from torchsmith.program.foreign import import_script

    same = same_stage = total = 0
    with Worker(memory_mb=options.memory_mb, python=python) as worker:
        for case in cases:
            path = folder / case["file"]
            t0 = time.perf_counter()
            try:
                imported = import_script(path.read_text(), name=path.stem, path=str(path))
            except ProgramFormatError as e:
                print(f"-- {case['file']}: not converted: {e}", flush=True)
                continue
            a = check_program(load_program(path), options, worker)
            b = check_program(imported, options, worker)
            total += 1
            va, vb = (
                KIND.get(a.verdict.value, a.verdict.value),
                KIND.get(b.verdict.value, b.verdict.value),
            )
            ok = va == vb or (not a.is_bug and not b.is_bug)
            same += ok
            same_stage += ok and a.stage == b.stage
            sa = a.stage.value if a.stage else None
            sb = b.stage.value if b.stage else None
            print(
                f"{'ok' if ok else 'XX'} {case['file']:48s} script {a.verdict.value}@{sa}"
                f"  imported {b.verdict.value}@{sb}  {time.perf_counter() - t0:.0f}s",
                flush=True,
            )
    print(f"verdict agrees on {same} of {total}; verdict and stage on {same_stage} of {total}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cases = json.loads(args.cases.read_text())
    if args.only:
        cases = [c for c in cases if any(o in c["file"] or o == str(c["issue"]) for o in args.only)]
    options = CheckOptions(timeout=args.timeout, memory_mb=args.memory_mb)
    if args.convert_only:
        return convert_only(cases, args.cases.parent)
    if args.agree:
        return agree(cases, args.cases.parent, options, args.python)
    rows: list[dict[str, Any]] = []
    if args.rows and args.rows.exists():
        rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
        done = {r["file"] for r in rows}
        cases = [c for c in cases if c["file"] not in done]
    with Worker(memory_mb=args.memory_mb, python=args.python) as worker:
        worker.start()
        version = worker.torch_version or "?"
        print(f"torch {version} under {args.python}; {len(cases)} cases", flush=True)
        for case in cases:
            path = args.cases.parent / case["file"]
            t0 = time.perf_counter()
            verdict = stage = error = None
            bug = False
            try:
                result = check_program(load_program(path), options, worker)
                verdict, bug = result.verdict.value, result.is_bug
                stage = result.stage.value if result.stage else None
                if verdict == "invalid" and result.phase and result.phase.value == "load":
                    error, verdict = result.reason, None  # not read: the tool's failure
            except (ProgramFormatError, RuntimeError) as e:
                error = str(e)
            row = {"file": case["file"], "issue": case["issue"], "category": case["category"]}
            row.update(verdict=verdict, stage=stage, error=error)
            row.update(expected=case["expected"], seconds=round(time.perf_counter() - t0, 1))
            row.update(score(case, version, verdict, stage, bug))
            rows.append(row)
            if args.rows:
                with open(args.rows, "a") as f:
                    f.write(json.dumps(row) + "\n")
            mark = {True: "ok", False: "XX", None: "--"}[row["right_verdict"]]
            print(
                f"{mark} {case['file']:48s} {row['state']:9s} want {case['expected']['verdict']}"
                f"@{case['expected'].get('stage')}  got {verdict}@{stage}  {row['seconds']}s"
                + (f"  [{error[:80]}]" if error else ""),
                flush=True,
            )
    summary = summarize(rows, version)
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


def summarize(rows: list[dict[str, Any]], version: str) -> dict[str, Any]:
    def pct(num: int, den: int) -> str:
        return f"{num}/{den} = {100.0 * num / den:.0f}%" if den else "0/0"

    buggy = [r for r in rows if r["state"] == "buggy"]
    clean = [r for r in rows if r["state"] in ("fixed", "not-a-bug")]
    return {
        "torch": version,
        "cases": len(rows),
        "imported": pct(sum(r["imported"] for r in rows), len(rows)),
        "buggy here: right verdict": pct(sum(bool(r["right_verdict"]) for r in buggy), len(buggy)),
        "buggy here: right stage": pct(sum(bool(r["right_stage"]) for r in buggy), len(buggy)),
        "fixed or not-a-bug here: false alarms": f"{sum(r['false_alarm'] for r in clean)}"
        f" of {len(clean)}",
        "seconds per case (median)": sorted(r["seconds"] for r in rows)[len(rows) // 2]
        if rows
        else 0,
    }


if __name__ == "__main__":
    raise SystemExit(main())
