#!/usr/bin/env bash
# One of issue 20's wgmma held-out sets measured on the H200 (gpusim/reporting/wgmma_heldout.py:
# nvcc builds the flash3_wgmma instances, each (workload, instance) is timed after an L2 flush
# and checked against float64). About a minute.
#
#   run(command="bash gpusim/validation/run_wgmma_heldout_device.sh heldout4", carry=[".whl"],
#       timeout_s=300)
#
# Files under $OUT: run.log, nvidia_smi_before.csv, nvidia_smi_after.csv, SET/ (heldout.json,
# build.json, log).
set -u -o pipefail
SET=${1:?name the set, e.g. heldout4}
LIMIT_S=${WGMMA_HELDOUT_LIMIT_S:-260}
. gpusim/validation/device_steps.sh
wheels
device_info
Q=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active
nvidia-smi --query-gpu=$Q --format=csv > "$OUT/nvidia_smi_before.csv"
mkdir -p "$OUT/$SET"
step measure timeout $(($(left) - 15)) python3 -m gpusim.reporting.wgmma_heldout --set "$SET" \
  measure --out "$OUT/$SET" --cubin-dir /tmp/cubins
nvidia-smi --query-gpu=$Q --format=csv > "$OUT/nvidia_smi_after.csv"
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
