#!/usr/bin/env bash
# Issue 20's next device call, in one: the wgmma_step record with the rows the model lacks
# (Bc 176 and 80, three warpgroups over a three-stage ring: no attention code) and held-out
# set 6 (the masked-step candidate; fixed and predicted in reports/kernels/wgmma/heldout6).
# About 4 minutes.
#
#   run(command="bash gpusim/validation/run_wgmma_next_device.sh", carry=[".whl"], timeout_s=420)
#
# Files under $OUT: run.log, ws/ (wgmma-step.json, ptxas.txt), heldout6/ (heldout.json,
# build.json, log), nvidia_smi_before.csv. The card the log names decides which of set 6's
# prediction files is judged (its manifest's rule).
set -u -o pipefail
LIMIT_S=${WGMMA_NEXT_LIMIT_S:-400}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log
wheels
device_info
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv \
  > "$OUT/nvidia_smi_before.csv"
mkdir -p "$OUT/ws" "$OUT/heldout6" /tmp/wgmma_build
# Set 6 first: the judged measurement must not wait on the record.
step heldout6 timeout 180 python3 -m gpusim.reporting.wgmma_heldout --set heldout6 measure \
  --out "$OUT/heldout6" --cubin-dir /tmp/cubins
step wgmma_cubin python3 -c "
from pathlib import Path; from gpusim.calibrate.wgmma import build_cubin
p, log = build_cubin(Path('/tmp/wgmma_build')); Path('$OUT/ws/ptxas.txt').write_text(log)
Path('/tmp/wgmma_cubin_path').write_text(str(p))"
step wgmma_step timeout $(($(left) - 10)) python3 -m gpusim.calibrate.wgmma_step \
  --cubin "$(cat /tmp/wgmma_cubin_path)" --out "$OUT/ws/wgmma-step.json"
echo "=== done in $(($(date +%s) - T0))s"
