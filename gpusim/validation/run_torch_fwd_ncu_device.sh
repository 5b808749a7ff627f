#!/usr/bin/env bash
# One device call (about a minute, no wheels): PyTorch's FlashAttention-2 forward kernel
# under Nsight Compute at three shapes (d64 and d128 at 4096 tokens, one causal), to check
# that the SM core model's replay of its SASS (data/h200/2026-12-02_torch_flash_sass) walks
# the step the kernel executes: executed warp-instructions per warp and step, against the
# replayed path (a diagnostic; reports/torch_sass judged that replay).
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_torch_fwd_ncu_device.sh")
#
# Files under $OUT: run.log, fwd_ncu/<run>.details.csv, fwd_ncu/versions.txt.
set -u -o pipefail
LIMIT_S=${FWD_NCU_LIMIT_S:-240}
. gpusim/validation/device_steps.sh
D="$OUT/fwd_ncu"
mkdir -p "$D"
{ ncu --version; python3 -c "import torch; print('torch', torch.__version__)"; } > "$D/versions.txt" 2>&1
for r in "4 16 16 4096 128 bf16 0" "4 32 32 4096 64 bf16 0" "4 16 16 4096 128 bf16 1"; do
  torch_fwd_ncu "$D" $r
done
echo "=== done in $(($(date +%s) - T0))s"
sleep 1
