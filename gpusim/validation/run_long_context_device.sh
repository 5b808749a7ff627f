#!/usr/bin/env bash
# Issue 18's long-context sweep on the H200 in one device call (about 6-8 minutes):
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_long_context_device.sh",
#       carry=[".whl"], timeout_s=600)
#
# .whl holds the pydantic/simpy wheels the device image lacks (see the device README).
# Steps, each allowed to fail without stopping the next (its exit code goes to the log):
#   1. nvcc builds every kernel instance the sweep and the correctness check need (16 jobs);
#   2. the grid instances are rebuilt and their SASS main loops compared with the recorded
#      build (data/sm90/2026-11-30_kernels_build), the switch variants' loops beside them;
#   3. correctness of every long-context switch on awkward shapes (float64 reference);
#   4. the sweep of the committed manifest, timed, each run checked on a sample (resumable:
#      run the script again with the same $OUT files to finish an interrupted sweep);
#   5. Nsight Compute's DRAM bytes of the prefill runs (ncu --clock-control none).
# Everything lands under $OUT as at most 8 files, none in a sub-folder:
#   run.log sass_check.json correctness_long_context.json provenance.json sweep.jsonl
#   ncu.json extras.tar.gz (ncu's CSVs and ids, the cubins' ptxas report)
set -u -o pipefail
LIMIT_S=${LONG_CONTEXT_LIMIT_S:-570}        # the whole script, inside the call's 600 s
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, run.log

wheels  # pydantic and simpy from .whl; the checkout and them on PYTHONPATH
M=data/h200/2026-12-02_long_context/manifest_configs.json
S=/tmp/long_context
mkdir -p "$S"
[ -f "$M" ] || { echo "no manifest at $M: the lead commits it before the run"; exit 1; }

device_info

LC="python3 -m gpusim.reporting.long_context"
step build timeout 150 $LC build --manifest "$M" --cubin-dir "$S/cubins" --jobs 16 --checks
step sass timeout 120 python3 -m gpusim.kernels.default_loop_check \
  --out "$OUT/sass_check.json" --jobs 16 --variants
step correctness timeout 150 python3 -m gpusim.kernels.check_long_context \
  --out "$OUT/correctness_long_context.json" --cubin-dir "$S/cubins"
# The sweep stops starting configs when 130 s are left: ncu and the tarball get those.
step measure $LC measure --manifest "$M" --out "$OUT" --cubin-dir "$S/cubins" \
  --budget-s $(($(left) - 130))
step ncu timeout $(($(left) - 10)) $LC ncu --manifest "$M" --out "$OUT" --scratch "$S/ncu" \
  --cubin-dir "$S/cubins" --timeout-s $(($(left) - 20))
tar czf "$OUT/extras.tar.gz" -C "$S" --exclude='*.cubin' --exclude='*.ncu-rep' . 2>/dev/null
echo "=== done in $(($(date +%s) - T0))s"
sleep 2  # let tee write the end of run.log before the files are collected
