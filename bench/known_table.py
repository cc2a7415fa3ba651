"""Writes the known-bug table torchsmith ships (``src/torchsmith/data/known_bugs.json``).

Every compiler-bug case of the public-issue corpus (``bench/issues/cases.json``: not the
not-a-bug cases) and every script of this project's own reported finds (``bench/found``) is
imported into the canonical format (checked as pasted when it cannot be imported), checked
under ``--python`` (a venv with the torch to sign on) and, with ``--reduce``, reduced by the same
reducer a campaign uses when its failure is a wrong output; the readable signature of the
(reduced) program is recorded with the issue number, URL and title, and the opt-in passes the
script switches on by name (``needs``: the entry then labels only findings run with them). A
case that does not fail there (fixed in that release, or not reproduced on CPU) gives no entry. Entries are added: a
case may hold several (signed as pasted, imported, reduced; per torch version).

    python bench/known_table.py --python /work/venv26/bin/python --reduce
    python bench/known_table.py --reduce          # this interpreter's torch

Campaigns label a cause ``known #N`` when it matches an entry (``torchsmith.known``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from torchsmith import dedup  # noqa: E402
from torchsmith.check import check_program  # noqa: E402
from torchsmith.execute.worker import Worker  # noqa: E402
from torchsmith.known import passes_named  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.format import ProgramFormatError  # noqa: E402
from torchsmith.program.load import load_program  # noqa: E402

TABLE = HERE.parent / "src" / "torchsmith" / "data" / "known_bugs.json"


def corpus(cases_file: Path, found_dir: Path) -> list[dict[str, Any]]:
    """The scripts to sign: public compiler-bug cases, then the project's own finds."""
    out = []
    for case in json.loads(cases_file.read_text()):
        if case["category"] == "not-a-bug":
            continue
        out.append(
            {
                "path": cases_file.parent / case["file"],
                "issue": case["issue"],
                "url": case["url"],
                "title": case["title"],
                "source": f"bench/issues/{case['file']}",
            }
        )
    for path in sorted(found_dir.glob("*.py")):
        out.append(
            {"path": path, "issue": None, "url": "", "title": path.stem.replace("_", " ")}
            | {"source": f"bench/found/{path.name}"}
        )
    return out


def sign(
    item: dict[str, Any],
    options: CheckOptions,
    worker: Worker,
    reduce: float | None,
    args_all: bool = False,
):
    """(readable signature, how it was signed) of the item's failure here, or (None, why). A
    wrong output is reduced (its signature names ops, which reduction narrows); a crash is
    signed by its exception and message, which reduction keeps, so it is reduced only with
    ``args_all``."""
    try:
        program = load_program(item["path"], scripts=False)
        how = "imported"
    except ProgramFormatError:
        program, how = load_program(item["path"]), "script"
    result = check_program(program, options, worker)
    if not result.is_bug:
        return None, f"{result.verdict.value} here"
    if reduce and how == "imported" and (args_all or result.verdict.is_wrong_output):
        from torchsmith.reduce import reduce_program

        res = reduce_program(
            program, options, worker=worker, time_budget=reduce, result=result, generic=False
        )
        if res.confirmed and res.result is not None:
            program, result, how = res.reduced, res.result, "reduced"
    return dedup.readable_signature(result, program), how


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable, help="Interpreter of the torch to sign on.")
    ap.add_argument("--cases", type=Path, default=HERE / "issues" / "cases.json")
    ap.add_argument("--found", type=Path, default=HERE / "found")
    ap.add_argument("--reduce", nargs="?", type=float, const=60.0, default=None, metavar="SECONDS")
    ap.add_argument("--reduce-all", action="store_true", help="Reduce crashes too.")
    ap.add_argument("--fresh", action="store_true", help="Drop this version's old entries.")
    ap.add_argument("--only", nargs="*", default=None, help="File names or issue numbers.")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", type=Path, default=TABLE)
    args = ap.parse_args(argv)
    items = corpus(args.cases, args.found)
    if args.only:
        items = [
            i for i in items if any(o in i["source"] or o == str(i["issue"]) for o in args.only)
        ]
    table = json.loads(args.out.read_text()) if args.out.exists() else {"schema": 1, "entries": []}
    options = CheckOptions(timeout=args.timeout)
    with Worker(python=args.python) as worker:
        worker.start()
        version = worker.torch_version or "?"
        print(f"torch {version}: {len(items)} scripts", flush=True)
        signed = []
        for item in items:
            t0 = time.perf_counter()
            try:
                readable, how = sign(item, options, worker, args.reduce, args.reduce_all)
            except (ProgramFormatError, RuntimeError) as e:
                readable, how = None, f"error: {e}"[:120]
            print(f"{item['source']:60s} {how:12s} {readable}  {time.perf_counter() - t0:.0f}s")
            if readable is not None:
                entry = {k: item[k] for k in ("issue", "url", "title", "source")}
                entry |= {"readable": readable, "torch": version, "signed": how}
                needs = sorted(passes_named(Path(item["path"]).read_text()))
                signed.append(entry | ({"needs": needs} if needs else {}))
    # entries are added, never silently replaced: a script signed as pasted and its imported or
    # reduced program may sign differently, and both name the same known bug; --fresh drops this
    # version's entries of the scripts signed now
    redone = {i["source"] for i in items} if args.fresh else set()
    new = {(e["source"], e["torch"], e["readable"]) for e in signed}
    keep = [
        e
        for e in table["entries"]
        if (e["source"], e["torch"], e["readable"]) not in new
        and not (e["torch"] == version and e["source"] in redone)
    ]
    table["entries"] = sorted(keep + signed, key=lambda e: (e["source"], e["torch"]))
    args.out.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{len(signed)} entries signed on torch {version}; {len(table['entries'])} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
