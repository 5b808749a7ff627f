#!/usr/bin/env bash
# One new-shapes held-out set of the project's kernels on the H200, through the validation
# sweep's harness (build every instance with nvcc, then time each run against float64):
#
#   run(command="bash gpusim/validation/run_new_shapes_device.sh MANIFEST NAME",
#       carry=[".whl"], timeout_s=400)
#
# MANIFEST: the set's committed manifest_configs.json; NAME: the folder under $OUT that gets
# the dataset and provenance. Files under $OUT: run.log, NAME/.
set -u -o pipefail
M=${1:?manifest} NAME=${2:?name}
LIMIT_S=${NEW_SHAPES_LIMIT_S:-360}
. gpusim/validation/device_steps.sh
wheels
device_info
step build timeout 150 python3 -m gpusim.validation.gpu_sweep --configs "$M" --build-cubins /tmp/cubins
step measure timeout $(($(left) - 20)) python3 -m gpusim.validation.gpu_sweep --configs "$M" \
  --out "$OUT/$NAME" --cubin-dir /tmp/cubins --no-ncu
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
