#!/usr/bin/env bash
# A diagnostic, not a judgement: Nsight Compute's SM cycles and clock for every instance of a
# measured wgmma held-out set (one launch each after the correctness launch, L2 flushed as the
# set's timing does), to tell the model's per-step cycles from its clock. About 2 minutes.
#
#   run(command="bash gpusim/validation/run_wgmma_cycles_ncu_device.sh heldout4", carry=[".whl"],
#       timeout_s=300)
#
# Files under $OUT: run.log, wgmma_cycles_ncu/ (versions.txt, wgmma_cycles.details.csv,
# ncu_stderr.log, timed/heldout.json: the launches' CUDA-event times under ncu).
set -u -o pipefail
SET=${1:?name the set, e.g. heldout4}
LIMIT_S=${WGMMA_CYCLES_LIMIT_S:-280}
. gpusim/validation/device_steps.sh
wheels
device_info
D="$OUT/wgmma_cycles_ncu"
mkdir -p "$D"
ncu --version > "$D/versions.txt" 2>&1
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum
step ncu timeout $(($(left) - 30)) ncu --clock-control none --kernel-name regex:flash3_wgmma \
  --metrics "$M" -f -o /tmp/wgmma_cycles python3 -m gpusim.reporting.wgmma_heldout --set "$SET" \
  measure --out "$D/timed" --cubin-dir /tmp/cubins --repeats 1 --warmup 0
step export ncu_export wgmma_cycles "$D"
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
