#!/usr/bin/env bash
# The Hopper kernel's split-KV and GQA instances (gpusim.reporting.wgmma_decode_set): nvcc
# builds them, the awkward shapes are checked against float64, the set is timed; then on an
# H200 the one-command calibrate --quick (issue 19; CAL_FULL=1 adds the full one, which needs
# a call of its own for time; CALIBRATE_ON_H200=0 skips it).
#
#   run(command="bash gpusim/validation/run_wgmma_decode_device.sh", carry=[".whl"],
#       kind="nvidia-h200", timeout_s=600)
#
# Files under $OUT: run.log, decode/ (build.json: ptxas and SASS counts of every instance;
# decode_set.json: the shape checks and the timed rows), and on an H200 cal/ (run.log,
# calibration.tar.gz).
set -u -o pipefail
LIMIT_S=${WGMMA_DECODE_LIMIT_S:-585}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log
wheels
device_info
mkdir -p "$OUT/decode" /tmp/wgmma_decode
DS="python3 -m gpusim.reporting.wgmma_decode_set --set ${WGMMA_DECODE_SET:-decode_set1}"
step build timeout 150 $DS build --cubin-dir /tmp/wgmma_decode --jobs 16
cp /tmp/wgmma_decode/build.json "$OUT/decode/build.json"
step measure timeout 240 $DS measure --out "$OUT/decode" --cubin-dir /tmp/wgmma_decode
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader)
if [ "${CALIBRATE_ON_H200:-1}" = 1 ] && grep -q H200 <<< "$CARD"; then
  mkdir -p "$OUT/cal"
  step calibrate env OUT="$OUT/cal" CAL_FULL="${CAL_FULL:-0}" CAL_LIMIT_S=$(($(left) - 10)) \
    bash "$(dirname "$0")/run_calibrate_one_command_device.sh"
fi
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
