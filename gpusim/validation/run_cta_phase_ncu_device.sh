#!/usr/bin/env bash
# Nsight Compute on cta_phase's loops (no attention code) at 1, 2 and 4 CTAs of 4 warps per
# SM: stall reasons, issue, pipes, for the SM core model's misses there (about 2 minutes).
#
#   run(command="bash gpusim/validation/run_cta_phase_ncu_device.sh", carry=[".whl"],
#       timeout_s=400)
#
# Files under $OUT: run.log, cta_phase_ncu/ (versions.txt, cta_phase.details.csv,
# cta_phase.raw.csv, ncu_stderr.log).
set -u -o pipefail
LIMIT_S=${CTA_PHASE_NCU_LIMIT_S:-360}
. gpusim/validation/device_steps.sh
wheels
device_info
D="$OUT/cta_phase_ncu"
mkdir -p "$D"
ncu --version > "$D/versions.txt" 2>&1
METRICS=$(python3 -c "from gpusim.ncu import DIAGNOSTIC_METRICS as M; print(','.join(M))")
step ncu timeout $(($(left) - 40)) ncu --clock-control none --kernel-name regex:cta_phase \
  --metrics "$METRICS,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio" \
  -f -o /tmp/cta_phase python3 -m gpusim.calibrate.cta_phase_ncu
step export ncu_export cta_phase "$D" raw
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
