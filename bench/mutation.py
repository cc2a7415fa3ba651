"""Mutation generator: valid rate and programs per minute over N eager-checked mutants.

    python bench/mutation.py [-n 500] [--seed 0] [--corpus DIR] [--operators a,b] [--json OUT]

Runs the ``mutate`` generator seed after seed (each seed: mutants eager-checked in one persistent
worker until one is valid or ``max_tries`` is reached) until ``-n`` mutants have been checked.
Reports the valid rate (valid / checked), the yield per seed, valid programs per minute (wall
clock, worker start excluded), and the valid rate per mutation operator.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from torchsmith.execute.worker import Worker
from torchsmith.generate.mutate.generator import MutationGenerator
from torchsmith.generate.protocol import GenContext


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=500, help="mutants to eager-check (default 500)")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--corpus", default=None, help="files/folders (default: built-in corpus)")
    ap.add_argument("--operators", default=None, help="comma-separated operator names")
    ap.add_argument("--max-tries", type=int, default=8)
    ap.add_argument("--json", dest="json_out", default=None, help="write the figures here")
    args = ap.parse_args()

    worker = Worker()
    worker.run({"kind": "ping"}, 300)  # pay the torch import before the clock starts
    opts = {"max_tries": args.max_tries}
    if args.corpus:
        opts["corpus"] = args.corpus
    if args.operators:
        opts["operators"] = args.operators
    gen = MutationGenerator(worker=worker, **opts)
    ctx = GenContext()
    digests: set[str] = set()
    t0 = time.monotonic()
    seed = args.seed
    while gen.stats.checked < args.n:
        prog = gen.generate(seed, ctx)
        if prog is not None:
            digests.add(prog.digest)
        seed += 1
    wall = time.monotonic() - t0
    worker.close()
    st = gen.stats
    figures = {
        "mutants_checked": st.checked,
        "valid": st.valid,
        "valid_rate": round(st.valid_rate, 4),
        "seeds": st.seeds,
        "seeds_with_valid_mutant": st.produced,
        "yield_per_seed": round(st.produced / st.seeds, 4),
        "distinct_valid_mutants": len(digests),
        "wall_s": round(wall, 1),
        "eager_check_s": round(st.check_seconds, 1),
        "valid_programs_per_min": round(st.valid / wall * 60, 1),
        "mutants_checked_per_min": round(st.checked / wall * 60, 1),
        "verdicts": dict(st.verdicts),
        "operator_valid_rate": st.to_dict()["operator_valid_rate"],
        "operator_checked": dict(sorted(st.operator_checked.items())),
        "corpus_size": len(gen.corpus),
    }
    print(f"mutants checked        {st.checked}  (seeds {args.seed}..{seed - 1})")
    print(f"valid                  {st.valid}  ({100 * st.valid_rate:.1f} %)")
    print(f"seeds with a mutant    {st.produced}/{st.seeds}")
    print(f"valid programs / min   {figures['valid_programs_per_min']}")
    print(f"mutants checked / min  {figures['mutants_checked_per_min']}  (wall {wall:.0f} s)")
    print(f"verdicts               {dict(st.verdicts)}")
    print("valid rate per operator (mutants containing it):")
    for op, rate in figures["operator_valid_rate"].items():
        print(f"  {op:14s} {100 * rate:5.1f} %  of {st.operator_checked[op]}")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
