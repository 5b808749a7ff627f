#!/usr/bin/env bash
# The step_stream microbenchmark (python -m gpusim.calibrate.step_stream) on the lent card.
#
#   run(command="bash gpusim/validation/run_step_stream_device.sh", carry=[".whl"], timeout_s=300)
#
# Files under $OUT: run.log, smi.txt, step-stream-<card>.json.
set -u -o pipefail
LIMIT_S=${STEP_STREAM_LIMIT_S:-240}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log
wheels
device_info
nvidia-smi > "$OUT/smi.txt"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then CARD=h200; else CARD=h100; fi
step step_stream timeout $(($(left) - 5)) python3 -m gpusim.calibrate.step_stream \
  --out "$OUT/step-stream-$CARD.json"
