#!/usr/bin/env bash
# cta_phase on the H200 (gpusim/calibrate/cta_phase.py; no attention code): do co-resident
# CTAs keep the offset they enter a loop at? About a minute.
#
#   run(command="bash gpusim/validation/run_cta_phase_device.sh", carry=[".whl"], timeout_s=300)
#
# Files under $OUT: run.log, cta_phase.json.
set -u -o pipefail
LIMIT_S=${CTA_PHASE_LIMIT_S:-260}
. gpusim/validation/device_steps.sh
wheels
device_info
step cta_phase timeout $(($(left) - 10)) python3 -m gpusim.calibrate.cta_phase --out "$OUT/cta_phase.json"
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
