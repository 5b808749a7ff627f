#!/usr/bin/env bash
# One device call (about 4 minutes): the red_mma microbenchmark (mma.sync products beside
# fp32 fragment-layout atomic adds, no attention code), then PyTorch's FlashAttention-2
# backward kernel under Nsight Compute at three of held-out set 15's shapes (d64, d128,
# d256; a diagnostic of a seen set: whatever it suggests is judged on a new set).
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_red_mma_bwd_ncu_device.sh",
#       carry=[".whl"], timeout_s=600)
#
# Files under $OUT: run.log, red_mma.json, bwd_ncu/<run>.details.csv and .raw.csv (ncu's
# pages of the backward's dq_dk_dv kernel, --set full), bwd_ncu/versions.txt.
set -u -o pipefail
LIMIT_S=${RED_MMA_LIMIT_S:-560}
. gpusim/validation/device_steps.sh
wheels
device_info
step red_mma timeout 150 python3 -m gpusim.calibrate.red_mma --out "$OUT/red_mma.json"
step red_mma_table python3 -m gpusim.calibrate.red_mma --table "$OUT/red_mma.json"
D="$OUT/bwd_ncu"
mkdir -p "$D"
{ ncu --version; python3 -c "import torch; print('torch', torch.__version__)"; } > "$D/versions.txt" 2>&1
# B H HKV N D DTYPE CAUSAL: set 15's d64 and d128 paper-sweep runs at 4096 tokens, its d256 run
for r in "4 32 32 4096 64 bf16 0" "4 16 16 4096 128 bf16 0" "2 8 8 4096 256 bf16 0"; do
  set -- $r
  name="b$1h$2_n$4_d$5_$6_c$7"
  step "ncu $name" timeout $(($(left) / 2 - 10)) ncu --clock-control none --set full \
    --kernel-name regex:dq_dk_dv --launch-count 1 -o "/tmp/$name" -f \
    python3 -m gpusim.validation.torch_bwd_ncu --run $r
  ncu_export "$name" "$D" raw
done
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
