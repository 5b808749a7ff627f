#!/usr/bin/env bash
# One device call (about a minute, no wheels): the torch_ragged_look grid timed (PyTorch's d64
# forward and backward, B22 H12, 1408-1664 tokens, causal and not), then PyTorch's forward
# kernel under Nsight Compute at 1536 (even) and 1600 (ragged) tokens, causal: executed
# instructions per warp and step of the even and the ragged instance. A look; judges nothing.
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_torch_ragged_look_device.sh")
#
# Files under $OUT (at most eight come back): run.log, bwd/runs.jsonl, bwd/provenance.json,
# ncu/<run>.details.csv (two), ncu/versions.txt.
set -u -o pipefail
LIMIT_S=${RAGGED_LIMIT_S:-240}
. gpusim/validation/device_steps.sh
device_info
step measure python3 -m gpusim.validation.torch_bwd_measure \
  --manifest data/h100/2026-12-07_torch_ragged_look/manifest_configs.json --out "$OUT/bwd" \
  --budget-s 90
D="$OUT/ncu"
mkdir -p "$D"
{ ncu --version; python3 -c "import torch; print('torch', torch.__version__)"; } > "$D/versions.txt" 2>&1
for r in "22 12 12 1536 64 fp16 1" "22 12 12 1600 64 fp16 1"; do
  torch_fwd_ncu "$D" $r
done
echo "=== done in $(($(date +%s) - T0))s"
sleep 1
