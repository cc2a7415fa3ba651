"""The export family through the export path: how many programs ``torch.export`` takes, and
full AOTInductor checks of a few.

    python bench/export_path.py [-n 50] [--seed 0] [--rung export_decomp] [--aoti 5] [--json OUT]

Generates ``-n`` programs of the ``export`` family (eager-checked, as ``bench/families.py``),
then checks each one whose path is ``aoti`` with ``--rung`` as its backend (default
``export_decomp``: export and decompositions, run eagerly; no C++ build) in one worker, and
the first ``--aoti`` of them with the whole path (``aoti``: the package built, loaded and run).
Reports verdicts per base and the reasons of programs the path refused (``invalid``) or failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from torchsmith.check import check_eager, check_program
from torchsmith.execute.worker import Worker
from torchsmith.generate.export.generator import ExportGenerator
from torchsmith.generate.protocol import GenContext
from torchsmith.options import CheckOptions


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rung", default="export_decomp")
    ap.add_argument("--aoti", type=int, default=0, help="full aoti checks of the first K")
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args()

    opts = CheckOptions(timeout=900, localize=False)
    worker = Worker(memory_mb=8192)
    gen = ExportGenerator()
    ctx = GenContext(eager_check=lambda p: check_eager(p, opts, worker))
    programs = []
    seed = args.seed
    while len(programs) < args.n:
        p = gen.generate(seed, ctx)
        seed += 1
        if p is not None:
            programs.append(p)
    rows = []
    for i, p in enumerate(programs):
        note = dict(n.split("=", 1) for n in p.notes if "=" in n)
        if note["path"] != "aoti":
            continue
        for backend in [args.rung] + (["aoti"] if i < args.aoti else []):
            t = time.monotonic()
            r = check_program(p, opts.replace(backend=backend), worker)
            rows.append(
                {
                    "program": p.name,
                    "base": note["base"],
                    "backend": backend,
                    "verdict": r.verdict.value,
                    "reason": r.reason[:200],
                    "seconds": round(time.monotonic() - t, 1),
                }
            )
            print(
                f"{p.name:12} {note['base']:9} {backend:14} {r.verdict.value:10} {r.reason[:110]}"
            )
    worker.close()
    gen.close()
    table: dict[str, Counter[str]] = {}
    for row in rows:
        table.setdefault(f"{row['backend']}/{row['base']}", Counter())[row["verdict"]] += 1
    print({k: dict(v) for k, v in sorted(table.items())})
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"rows": rows, "table": {k: dict(v) for k, v in table.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
