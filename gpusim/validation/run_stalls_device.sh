#!/usr/bin/env bash
# PyTorch's flash forward under Nsight Compute with every warp-stall reason (the raw page),
# causal and not on the same grids: what a short causal CTA waits on that an unmasked one
# does not. A diagnostic of seen runs (sets 44 and 46); it judges nothing.
#
#   . gpusim/validation/device_steps.sh; bash gpusim/validation/run_stalls_device.sh DIR
#
# Needs device_steps.sh sourced (ncu_export, step, $OUT); DIR gets <run>.details.csv and
# <run>.raw.csv per kernel (one launch each).
set -u -o pipefail
dir=$1
mkdir -p "$dir"
for r in "47 12 12 768 64 fp16 1" "47 12 12 768 64 fp16 0" \
         "85 32 32 384 128 bf16 1" "85 32 32 384 128 bf16 0"; do
  # shellcheck disable=SC2086
  set -- $r
  name="b$1h$2_n$4_d$5_$6_c$7"
  step "ncu $name" timeout 80 ncu --clock-control none \
    --section SpeedOfLight --section InstructionStats --section SchedulerStats \
    --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis \
    --kernel-name regex:flash_fwd --launch-count 1 -o "/tmp/$name" -f \
    python3 -m gpusim.validation.torch_bwd_ncu --forward-only --run "$@"
  ncu_export "$name" "$dir" raw
done
