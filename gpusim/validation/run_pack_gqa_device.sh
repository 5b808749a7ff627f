#!/usr/bin/env bash
# The packed-GQA held-out set (gpusim/validation/pack_gqa_set.py) on the H200 in one device
# call, from the checkout's root, with the wheels (pydantic, simpy) carried in .whl:
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_pack_gqa_device.sh",
#       carry=[".whl"], timeout_s=400)
#
# Steps, each allowed to fail without stopping the next (its exit code goes to the log):
#   1. nvcc builds the set's instances and the correctness check's variants (16 jobs);
#   2. the default instances' main loops against the recorded SASS, and the switch
#      variants' (PACK among them) against their base;
#   3. every switch variant, PACK alone, with split-KV and with every other switch, on the
#      awkward cases of gpusim.kernels.check_long_context, against float64;
#   4. every run of the set timed (CUDA events, L2 flushed, median) and checked on a
#      sample against float64.
# Files under $OUT: run.log sass_check.json correctness_long_context.json provenance.json
# sweep.jsonl extras.tar.gz.
set -u -o pipefail
LIMIT_S=${PACK_LIMIT_S:-380}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, run.log

wheels  # pydantic and simpy from .whl; the checkout and them on PYTHONPATH
M=data/h200/2026-12-03_pack_gqa/manifest_configs.json
S=/tmp/pack_gqa
mkdir -p "$S"
[ -f "$M" ] || { echo "no manifest at $M: it is committed before the run"; exit 1; }
device_info

LC="python3 -m gpusim.reporting.long_context"
step build timeout 150 $LC build --manifest "$M" --cubin-dir "$S/cubins" --jobs 16 --checks
step sass timeout 120 python3 -m gpusim.kernels.default_loop_check \
  --out "$OUT/sass_check.json" --jobs 16 --variants
step correctness timeout 150 python3 -m gpusim.kernels.check_long_context \
  --out "$OUT/correctness_long_context.json" --cubin-dir "$S/cubins"
step measure $LC measure --manifest "$M" --out "$OUT" --cubin-dir "$S/cubins" \
  --budget-s $(($(left) - 15))
tar czf "$OUT/extras.tar.gz" -C "$S" --exclude='*.cubin' . 2>/dev/null
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
