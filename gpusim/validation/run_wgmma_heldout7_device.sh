#!/usr/bin/env bash
# wgmma held-out set 7 (about a minute), then, on an H200 only, the one-command calibrate
# (full and --quick, about 5 minutes; its wgmma_step record has the three-stage ring rows an
# H200 profile would take): issue 19's "run it on the H200" and issue 20's ring rows at once.
#
#   run(command="bash gpusim/validation/run_wgmma_heldout7_device.sh", carry=[".whl"],
#       kind="nvidia-h200", timeout_s=600)
#
# Files under $OUT: run.log, nvidia_smi_before.csv, heldout7/ (heldout.json, build.json, log),
# and on an H200 cal/ (run.log, calibration.tar.gz: run_calibrate_one_command_device.sh's).
set -u -o pipefail
LIMIT_S=${WGMMA7_LIMIT_S:-585}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log
wheels
device_info
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv \
  > "$OUT/nvidia_smi_before.csv"
mkdir -p "$OUT/heldout7"
step heldout7 timeout 200 python3 -m gpusim.reporting.wgmma_heldout --set heldout7 measure \
  --out "$OUT/heldout7" --cubin-dir /tmp/cubins
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  mkdir -p "$OUT/cal"
  step calibrate env OUT="$OUT/cal" CAL_LIMIT_S=$(($(left) - 10)) \
    bash "$(dirname "$0")/run_calibrate_one_command_device.sh"
else
  echo "=== not an H200: the one-command calibrate is not run"
fi
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
