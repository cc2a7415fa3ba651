"""Does generation find the bugs torch.compile really has? Distinct bugs per CPU-hour, matched
to the public issues of the real-repro corpus (``bench/issues``: the answer key).

Runs a campaign for ``--time`` under ``--python`` (a venv with the torch release to hunt in;
torch 2.6.0 has many CPU bugs fixed since), with ``--generator`` (default ``mix``: the program
families), ``--jobs`` workers, then for every distinct bug (signature) of the campaign:

* matched to a corpus case buggy in that release: a crash whose exception type and normalized
  first message line share most of their words with the case's observed error, or a wrong value
  whose ops (the failing output's slice) are all used by the case's script, at the same stage;
* otherwise ``new`` (to be audited: real, known elsewhere, or a false alarm).

It prints per family: programs, validity, findings, distinct bugs, bugs per CPU-hour (the
campaign's wall time times its jobs), and one line per distinct bug with its match.

    python bench/rediscover.py --python /path/venv-2.6/bin/python --time 60m [--jobs 1]
    python bench/rediscover.py --campaign DIR        # score an existing campaign again
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from torchsmith.campaign.config import CampaignConfig  # noqa: E402
from torchsmith.campaign.loop import Campaign  # noqa: E402
from torchsmith.campaign.store import Store  # noqa: E402
from torchsmith.campaign.summary import summarize  # noqa: E402
from torchsmith.dedup import normalize_message  # noqa: E402
from torchsmith.finding import read_finding  # noqa: E402
from torchsmith.options import CheckOptions, parse_duration  # noqa: E402
from torchsmith.program.ops import source_ops  # noqa: E402

_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]{2,}")


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def corpus(version: str) -> list[dict[str, Any]]:
    """The corpus cases buggy in ``version``, with their ops and observed error words."""
    cases = json.loads((ROOT / "bench" / "issues" / "cases.json").read_text())
    out = []
    for c in cases:
        if version not in (c.get("buggy_in") or []):
            continue
        src = (ROOT / "bench" / "issues" / c["file"]).read_text()
        observed = str((c.get("observed") or {}).get(version, ""))
        out.append({**c, "ops": set(source_ops(src)), "words": words(observed)})
    return out


def match(bug: dict[str, Any], finding: Any, cases: list[dict[str, Any]]) -> str:
    """``#issue`` of the corpus case this bug rediscovers, or ``new``."""
    result = finding.result
    stage = result.stage.value if result.stage else None
    best, score = None, 0.0
    for c in cases:
        if c["expected"].get("stage") not in (None, stage):
            continue
        if result.verdict.value == "crash" and c["category"] == "crash":
            ev = result.evidence
            mine = words(f"{ev.get('root_type', '')} {normalize_message(str(ev.get('message')))}")
            s = len(mine & c["words"]) / max(1, len(mine | c["words"]))
        elif result.verdict.value != "crash" and c["category"] in ("mismatch", "precision"):
            ops = set(bug["readable"].split("|")[-1].split(",")) - {""}
            s = 1.0 if ops and ops <= c["ops"] else 0.0
        else:
            continue
        if s > score:
            best, score = c, s
    if best is not None and score >= 0.5:
        return f"#{best['issue']} ({best['file']})"
    return "new"


def report(folder: Path, version: str, jobs: int) -> dict[str, Any]:
    with Store(folder, readonly=True) as store:
        summary = summarize(store)
    cases = corpus(version)
    hours = summary["elapsed_s"] / 3600 * max(1, jobs)
    lines = []
    matched: set[str] = set()
    for bug in summary["bug_list"]:
        example = bug["reduced_finding"] or bug["smallest"]
        finding = read_finding(Path(summary["findings_dir"]) / example)
        m = match(bug, finding, cases)
        if m != "new":
            matched.add(m.split()[0])
        lines.append(f"{bug['signature']}  {bug['readable'][:90]}  x{bug['count']}  -> {m}")
    fam = [
        {**f, "bugs_per_cpu_hour": round(f["bugs"] / hours, 2) if hours else 0.0}
        for f in summary["families"]
    ]
    return {
        "torch": version,
        "campaign": str(folder),
        "cpu_hours": round(hours, 3),
        "programs": summary["programs"],
        "distinct_bugs": summary["bugs"],
        "distinct_known_rediscovered": len(matched),
        "bugs_per_cpu_hour": round(summary["bugs"] / hours, 2) if hours else 0.0,
        "known_per_cpu_hour": round(len(matched) / hours, 2) if hours else 0.0,
        "families": fam,
        "bugs": lines,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=None, help="The torch to hunt in (a venv's python).")
    ap.add_argument("--time", default="60m")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--generator", default="mix")
    ap.add_argument("--gen-option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--campaign", type=Path, default=None, help="Score this campaign only.")
    ap.add_argument("--version", default=None, help="The torch version (default: the worker's).")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.campaign is None:
        from torchsmith.options import parse_key_value

        out = args.out or Path(f"/tmp/rediscover-{time.strftime('%Y%m%d-%H%M%S')}")
        config = CampaignConfig.new(
            out, seed=args.seed, time_budget=parse_duration(args.time), jobs=args.jobs,
            generator=args.generator, python=args.python,
            gen_options=dict(parse_key_value(o, "--gen-option") for o in args.gen_option),
            options=CheckOptions(timeout=300),
        )  # fmt: skip
        Campaign(config).run()
        folder, jobs = out, args.jobs
    else:
        folder = args.campaign
        with Store(folder, readonly=True) as store:
            jobs = int(store.params().get("jobs") or 1)
    version = args.version or _version(folder, args.python)
    result = report(folder, version, jobs)
    print(json.dumps({k: v for k, v in result.items() if k != "bugs"}, indent=1))
    for line in result["bugs"]:
        print(line)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


def _version(folder: Path, python: str | None) -> str:
    """The torch release the campaign ran (asked of a worker under its interpreter)."""
    from torchsmith.execute.protocol import Request
    from torchsmith.execute.worker import Worker

    with Store(folder, readonly=True) as store:
        python = python or store.params().get("python")
    with Worker(python=python) as w:
        out = w.run(Request.ping(), 300)
    return str((out.result or {}).get("torch", "?")).split("+")[0]


if __name__ == "__main__":
    raise SystemExit(main())
