#!/usr/bin/env bash
# wgmma held-out set 7 (about a minute), then the wgmma_step record with its overlap rows
# (about 1.5 minutes); on an H200 instead the one-command calibrate (full and --quick, about 5
# minutes; its full record is the same wgmma_step's): issue 19's "run it on the H200" too.
#
#   run(command="bash gpusim/validation/run_wgmma_heldout7_device.sh", carry=[".whl"],
#       kind="nvidia-h200", timeout_s=600)
#
# Files under $OUT: run.log, nvidia_smi_before.csv, heldout7/ (heldout.json, build.json, log),
# and ws/ (wgmma-step.json, ptxas.txt) or, on an H200, cal/ (run.log, calibration.tar.gz:
# run_calibrate_one_command_device.sh's).
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
  mkdir -p "$OUT/ws" /tmp/wgmma_build
  step wgmma_cubin python3 -c "
from pathlib import Path; from gpusim.calibrate.wgmma import build_cubin
p, log = build_cubin(Path('/tmp/wgmma_build')); Path('$OUT/ws/ptxas.txt').write_text(log)
Path('/tmp/wgmma_cubin_path').write_text(str(p))"
  step wgmma_step timeout $(($(left) - 10)) python3 -m gpusim.calibrate.wgmma_step \
    --cubin "$(cat /tmp/wgmma_cubin_path)" --out "$OUT/ws/wgmma-step.json"
fi
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
