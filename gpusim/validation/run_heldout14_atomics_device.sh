#!/usr/bin/env bash
# The next lease's first device call (about 5 minutes): the L2's atomic adds, then held-out
# set 14 (issue 19's new shapes), whose predictions are committed (reports/new_shapes_heldout14).
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_heldout14_atomics_device.sh",
#       carry=[".whl"], timeout_s=600)
#
# l2_atomics goes first: held-out set 15's README has its rate written into a variant
# profile and that variant's predictions committed before set 15 (a second call, no wheels:
# its README) is measured. Files under $OUT: run.log, l2_atomics.json, heldout14/ (the
# validation sweep's dataset and provenance).
set -u -o pipefail
LIMIT_S=${HELDOUT14_LIMIT_S:-560}   # the whole script, inside the call's 600 s
. gpusim/validation/device_steps.sh
wheels
device_info
step l2_atomics timeout 90 python3 -m gpusim.calibrate.l2_atomics --out "$OUT/l2_atomics.json"
M=data/h200/2026-12-04_new_shapes_heldout14/manifest_configs.json
step build timeout 150 python3 -m gpusim.validation.gpu_sweep --configs $M --build-cubins /tmp/cubins
step measure timeout $(($(left) - 20)) python3 -m gpusim.validation.gpu_sweep --configs $M \
  --out "$OUT/heldout14" --cubin-dir /tmp/cubins --no-ncu
echo "=== done in $(($(date +%s) - T0))s"
sleep 2  # let tee write the end of run.log before the files are collected
