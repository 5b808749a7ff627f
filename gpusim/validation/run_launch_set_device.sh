#!/usr/bin/env bash
# A launch-charge held-out set (gpusim/validation/launch_set.py; launch_set2.py with
# LAUNCH_SET=2026-12-04_launch_set2) on the H200 in one device call, from the checkout's
# root, with the wheels (pydantic, simpy) carried in .whl:
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_launch_set_device.sh",
#       carry=[".whl"], timeout_s=400)
#
# Steps, each allowed to fail without stopping the next (its exit code goes to the log):
#   1. gpusim calibrate --only launch: the launch times, the queued ones among them (reported
#      beside the value the variant uses; fed to nothing);
#   2. nvcc builds the set's instances (16 jobs);
#   3. every run of the set timed (CUDA events, L2 flushed, median) and checked on a
#      sample against float64.
# Files under $OUT: run.log launch-h200.json provenance.json sweep.jsonl extras.tar.gz.
set -u -o pipefail
LIMIT_S=${LAUNCH_LIMIT_S:-380}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, run.log

wheels  # pydantic and simpy from .whl; the checkout and them on PYTHONPATH
M=data/h200/${LAUNCH_SET:-2026-12-04_launch_set}/manifest_configs.json
S=/tmp/launch_set
mkdir -p "$S"
[ -f "$M" ] || { echo "no manifest at $M: it is committed before the run"; exit 1; }
device_info

step launch timeout 120 python3 -m gpusim.calibrate --only launch --no-profile \
  --results "$OUT/launch-h200.json"
LC="python3 -m gpusim.reporting.long_context"
step build timeout 150 $LC build --manifest "$M" --cubin-dir "$S/cubins" --jobs 16
step measure $LC measure --manifest "$M" --out "$OUT" --cubin-dir "$S/cubins" \
  --budget-s $(($(left) - 15))
tar czf "$OUT/extras.tar.gz" -C "$S" --exclude='*.cubin' . 2>/dev/null
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
