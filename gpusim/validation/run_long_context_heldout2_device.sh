#!/usr/bin/env bash
# The second held-out set (gpusim/validation/long_context_heldout2.py) on the H200 in one
# device call of at most 300 s, run from a staged copy of the tree:
#
#   run(command="... cd .stage/l2long && GPUSIM_COMMIT=<sha> \
#                bash gpusim/validation/run_long_context_heldout_device.sh",
#       carry=[".stage/l2long", ".whl"], timeout_s=300)
#
# PYTHONPATH must already hold the wheels (pydantic, simpy) and this tree. Steps, each
# allowed to fail without stopping the next (its exit code goes to the log):
#   1. nvcc builds the set's kernel instances (16 jobs);
#   2. Nsight Compute's DRAM bytes of every run (ncu --clock-control none), first: the
#      bytes are what the set judges;
#   3. every run timed (CUDA events, L2 flushed, median) and checked on a sample against
#      float64, until HELDOUT_LIMIT_S is near.
# Files under $OUT, none in a sub-folder: run.log provenance.json sweep.jsonl ncu.json
# extras.tar.gz (ncu's CSVs and ids, the cubins' ptxas report).
set -u -o pipefail
LIMIT_S=${HELDOUT_LIMIT_S:-270}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, run.log
M=data/h200/2026-12-03_long_context_heldout2/manifest_configs.json
S=/tmp/long_context_heldout2
mkdir -p "$S"
[ -f "$M" ] || { echo "no manifest at $M"; exit 1; }
device_info
LC="python3 -m gpusim.reporting.long_context"
step build timeout 100 $LC build --manifest "$M" --cubin-dir "$S/cubins" --jobs 16
step ncu timeout $(($(left) - 70)) $LC ncu --manifest "$M" --out "$OUT" --scratch "$S/ncu" \
  --cubin-dir "$S/cubins" --timeout-s $(($(left) - 80))
step measure $LC measure --manifest "$M" --out "$OUT" --cubin-dir "$S/cubins" \
  --budget-s $(($(left) - 15))
tar czf "$OUT/extras.tar.gz" -C "$S" --exclude='*.cubin' --exclude='*.ncu-rep' . 2>/dev/null
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
