#!/usr/bin/env bash
# Issue #28 item 7: the GPU tier and a short CUDA campaign of the default mix (Triton codegen),
# run on a lent GPU machine through the device tool (its python3 holds a CUDA torch; the few
# runtime packages it lacks travel as wheels in .whl/, see notes/cuda.md):
#   bash bench/cuda_run.sh SECONDS JOBS [DEVICE]     (the campaign's budget; +90 s to wind down)
# Writes env.txt, gpu_tests.txt, fuzz.txt, summary.json and the campaign (cuda-run.tgz) to $OUT.
set -u
SECS=${1:-300}; JOBS=${2:-8}; DEV=${3:-cuda}; OUT=${OUT:-/tmp/cuda-out}; RUN=/tmp/cuda-run
mkdir -p "$OUT"; rm -rf "$RUN"
if [ -d .whl ] && [ -z "${NO_WHL:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
{ nvidia-smi -L; nproc; python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available() and torch.cuda.get_device_name())"; } 2>&1 | tee "$OUT/env.txt"
t0=$(date +%s)
python3 -m pytest -q -p no:cacheprovider tests/gpu 2>&1 | tee "$OUT/gpu_tests.txt"
echo "gpu tests: $(( $(date +%s) - t0 )) s" | tee -a "$OUT/gpu_tests.txt"
t0=$(date +%s)
timeout -s INT $(( SECS + 90 )) python3 -m torchsmith fuzz --device "$DEV" --time "${SECS}s" \
  --jobs "$JOBS" --seed 0 --out "$RUN" --reduce-time 30 --progress-interval 60 > "$OUT/fuzz.txt" 2>&1
echo "fuzz exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/fuzz.txt"
tail -60 "$OUT/fuzz.txt"
python3 -m torchsmith status "$RUN" --json > "$OUT/summary.json" 2>&1
tar czf "$OUT/cuda-run.tgz" -C /tmp cuda-run
