#!/usr/bin/env bash
# Issue #28 item 7: the GPU tier and a short CUDA campaign (Triton codegen), run on a lent GPU
# machine through the device tool (its python3 holds a CUDA torch; the few runtime packages it
# lacks travel as wheels in .whl/, see notes/cuda.md):
#   bash bench/cuda_run.sh SECONDS JOBS [DEVICE [FUZZ_ARGS...]]   (+90 s to wind down)
# tests/gpu runs beside the campaign (the GPU has room for both). After the campaign each
# distinct bug-tier cause's reduced repro (else its smallest finding's) is run standalone (8 at once),
# `python3 repro.py` in a fresh process, and its VERDICT line kept: the finding reproduces
# outside torchsmith's worker or it does not.
# Writes env.txt, gpu_tests.txt, fuzz.txt, summary.json, standalone.txt and the campaign's
# findings (cuda-run.tgz, without the workers' Inductor caches) to $OUT.
set -u
SECS=${1:-300}; JOBS=${2:-8}; DEV=${3:-cuda}; shift $(( $# < 3 ? $# : 3 ))
OUT=${OUT:-/tmp/cuda-out}; RUN=/tmp/cuda-run
mkdir -p "$OUT"; rm -rf "$RUN"
if [ -d .whl ] && [ -z "${NO_WHL:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
{ nvidia-smi -L; nproc; python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available() and torch.cuda.get_device_name())"; } 2>&1 | tee "$OUT/env.txt"
( t0=$(date +%s); python3 -m pytest -q -p no:cacheprovider tests/gpu > "$OUT/gpu_tests.txt" 2>&1
  echo "gpu tests: $(( $(date +%s) - t0 )) s" >> "$OUT/gpu_tests.txt" ) &
TESTS=$!
t0=$(date +%s)
timeout -s INT $(( SECS + 90 )) python3 -m torchsmith fuzz --device "$DEV" --time "${SECS}s" \
  --jobs "$JOBS" --seed 0 --out "$RUN" --reduce-time 30 --progress-interval 60 "$@" > "$OUT/fuzz.txt" 2>&1
echo "fuzz exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/fuzz.txt"
tail -40 "$OUT/fuzz.txt"
wait $TESTS; tail -3 "$OUT/gpu_tests.txt"
python3 -m torchsmith status "$RUN" --json > "$OUT/summary.json" 2>&1
python3 - "$RUN" "$OUT/summary.json" > "$OUT/standalone.txt" 2>&1 <<'PY'
import json, pathlib, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
run, summary = pathlib.Path(sys.argv[1]), json.loads(pathlib.Path(sys.argv[2]).read_text())
bugs = [b for b in summary.get("bug_list", []) if b.get("category") == "bug"]


def standalone(bug):
    fid = bug.get("reduced_finding") or bug.get("smallest")
    try:
        p = subprocess.run([sys.executable, "repro.py"], cwd=run / "findings" / fid,
                           capture_output=True, text=True, timeout=90)
        lines = (p.stdout + p.stderr).strip().splitlines()
        verdict = next((x for x in reversed(lines) if x.startswith("VERDICT")), lines[-1] if lines else "")
        rc = p.returncode
    except subprocess.TimeoutExpired:
        verdict, rc = "timeout after 90 s", "-"
    return f"{bug['signature']}\t{bug.get('label')}\t{bug.get('known_as') or ''}\t{fid}\trc={rc}\t{verdict[:300]}"


with ThreadPoolExecutor(8) as pool:
    for line in pool.map(standalone, bugs):
        print(line, flush=True)
PY
cat "$OUT/standalone.txt"
tar czf "$OUT/cuda-run.tgz" --exclude=workers -C /tmp cuda-run
ls -la "$OUT"
