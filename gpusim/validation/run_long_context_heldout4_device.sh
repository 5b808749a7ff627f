#!/usr/bin/env bash
# The fourth held-out set (gpusim/validation/long_context_heldout4.py) and the kv_walk
# microbenchmark (gpusim/calibrate/kv_walk.py) on the H200 in one device call, from the
# checkout's root, with the wheels (pydantic, simpy) carried in .whl:
#
#   run(command="bash gpusim/validation/run_long_context_heldout4_device.sh",
#       carry=[".whl"], timeout_s=600)
#
# Steps, each allowed to fail without stopping the next (its exit code goes to the log):
#   1. kv_walk under Nsight Compute (no attention kernel: fed to nothing by this call);
#   2. nvcc builds the set's kernel instances (16 jobs);
#   3. Nsight Compute's DRAM bytes of every run the manifest marks (ncu --clock-control none);
#   4. every run timed (CUDA events, L2 flushed, median) and checked on a sample against
#      float64, until the limit is near.
# Files under $OUT: run.log kv-walk-h200.json provenance.json sweep.jsonl ncu.json
# extras.tar.gz (ncu's CSVs and ids, the cubins' ptxas report).
set -u -o pipefail
LIMIT_S=${HELDOUT_LIMIT_S:-570}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log

wheels  # pydantic and simpy from .whl; the checkout and them on PYTHONPATH
M=data/h200/2026-12-04_long_context_heldout4/manifest_configs.json
S=/tmp/long_context_heldout4
mkdir -p "$S"
[ -f "$M" ] || { echo "no manifest at $M: it is committed before the run"; exit 1; }
device_info
step kv_walk timeout 150 python3 -m gpusim.calibrate.kv_walk --out "$OUT/kv-walk-h200.json"
long_context_set "$M" "$S"
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
