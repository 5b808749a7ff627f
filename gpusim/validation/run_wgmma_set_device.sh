#!/usr/bin/env bash
# One wgmma held-out set (about a minute), then on an H200 the one-command calibrate (full and
# --quick, about 5 minutes: issue 19's "run it on the H200"; CALIBRATE_ON_H200=0 skips it),
# else the wgmma_step record (about 1.5 minutes) where WGMMA_STEP=1. Sets 6 and 7's calls run
# it as they ran (run_wgmma_next_device.sh, run_wgmma_heldout7_device.sh).
#
#   run(command="bash gpusim/validation/run_wgmma_set_device.sh heldout9", carry=[".whl"],
#       kind="nvidia-h200", timeout_s=600)
#
# Files under $OUT: run.log, nvidia_smi_before.csv, SET/ (heldout.json, build.json, log), and
# on an H200 cal/ (run.log, calibration.tar.gz: run_calibrate_one_command_device.sh's), or
# ws/ (wgmma-step.json, ptxas.txt).
set -u -o pipefail
SET=${1:?name the set, e.g. heldout9}
LIMIT_S=${WGMMA_SET_LIMIT_S:-585}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log
wheels
device_info
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv \
  > "$OUT/nvidia_smi_before.csv"
mkdir -p "$OUT/$SET"
step "$SET" timeout 200 python3 -m gpusim.reporting.wgmma_heldout --set "$SET" measure \
  --out "$OUT/$SET" --cubin-dir /tmp/cubins
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader)
if [ "${CALIBRATE_ON_H200:-1}" = 1 ] && grep -q H200 <<< "$CARD"; then
  mkdir -p "$OUT/cal"
  step calibrate env OUT="$OUT/cal" CAL_LIMIT_S=$(($(left) - 10)) \
    bash "$(dirname "$0")/run_calibrate_one_command_device.sh"
elif [ "${WGMMA_STEP:-0}" = 1 ]; then
  mkdir -p "$OUT/ws" /tmp/wgmma_build
  step wgmma_cubin python3 -c "
from pathlib import Path; from gpusim.calibrate.wgmma import build_cubin
p, log = build_cubin(Path('/tmp/wgmma_build')); Path('$OUT/ws/ptxas.txt').write_text(log)
Path('/tmp/wgmma_cubin_path').write_text(str(p))"
  step wgmma_step timeout $(($(left) - 10)) python3 -m gpusim.calibrate.wgmma_step \
    --cubin "$(cat /tmp/wgmma_cubin_path)" --out "$OUT/ws/wgmma-step.json"
else
  echo "=== neither the one-command calibrate nor the wgmma_step record is run"
fi
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
