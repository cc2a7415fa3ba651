#!/usr/bin/env bash
# One lent-GPU session in one device call (issue #28 item 7): the GPU battery, the GPU leads and a
# short CUDA campaign side by side, then the machine's torch source for diffing against 2.13.
#   bash bench/cuda_session.sh CAMPAIGN_SECONDS JOBS [DEVICE [FUZZ_ARGS...]]
# 1. bench/gpu_battery/*.py: standalone scripts aimed at CUDA-only code paths (Triton codegen,
#    GPU-only graph passes, CUDA graphs, flex attention), each printing `RESULT <name> BUG|OK|ERROR
#    ...` lines; 6 at a time, 150 s each.
# 2. bench/leads/cuda_*.py through `torchsmith check --device cuda --grad` (the probe included).
# 3. bench/cuda_run.sh: tests/gpu beside a campaign, standalone re-runs of its bug-tier causes.
# 4. torch_src.tgz: the machine's torch/_inductor, _dynamo, _functorch, ... (its torch is not
#    2.13: a battery BUG is tied to 2.13 by diffing the lines at fault).
# Writes to $OUT: cuda_run.sh's six files, logs.tgz (battery and lead logs, battery.txt: every
# RESULT line) and torch_src.tgz. The same script on the CPU (`NO_WHL=1 DEV=cpu ... 30 2 cpu`) is
# the dry run made before spending device time.
set -u
SECS=${1:-240}; JOBS=${2:-8}; DEV=${3:-cuda}
OUT=${OUT:-/tmp/cuda-out}; LOGS=/tmp/cuda-logs
mkdir -p "$OUT"; rm -rf "$LOGS"; mkdir -p "$LOGS/leads"
if [ -d .whl ] && [ -z "${NO_WHL:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 DEV
export NO_WHL=1  # installed once, above
t0=$(date +%s)
TORCH_DIR=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
( cd "$TORCH_DIR" && tar czf "$OUT/torch_src.tgz" --exclude='__pycache__' --exclude='*.pyc' \
    torch/_inductor torch/_dynamo torch/_functorch torch/_higher_order_ops torch/_decomp \
    torch/_refs torch/export torch/nn/attention torch/version.py ) &
SRC=$!
python3 bench/gpu_battery_run.py "$LOGS/battery" --jobs 6 --each 150 --deadline "${BATTERY_DEADLINE:-330}" > /dev/null 2>&1 &
BATTERY=$!
LEADS=""
for f in bench/leads/cuda_*.py; do
  ( timeout -s KILL 240 python3 -m torchsmith check "$f" --device "$DEV" --grad -v \
      > "$LOGS/leads/$(basename "$f" .py).txt" 2>&1
    echo "exit $?" >> "$LOGS/leads/$(basename "$f" .py).txt" ) &
  LEADS="$LEADS $!"
done
bash bench/cuda_run.sh "$SECS" "$JOBS" "$DEV" "${@:4}"
wait $BATTERY $LEADS $SRC
cat "$LOGS/battery/battery.txt"; tail -n 4 "$LOGS"/leads/*.txt
tar czf "$OUT/logs.tgz" -C /tmp cuda-logs
echo "session: $(( $(date +%s) - t0 )) s"; ls -la "$OUT"
