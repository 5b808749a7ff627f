#!/usr/bin/env bash
# One device call (about three minutes): held-out set 36 (PyTorch's FlashAttention-2 forward
# and backward at 20 drawn prefill shapes, reports/torch_heldout36) timed against its committed
# predictions; held-out sets 34 and 35 (the tuner's whole candidate lists, 243 runs of the
# project's kernel, measured once on 2026-12-07) timed again, so that their two measurements
# give the rank agreement a model could reach at best (issue 19's tuner target); then two
# diagnostics that nothing reads yet: the SM clock under the timing protocol while the paper
# sweep's long non-causal forwards run (torch_fwd_clock), and load_clock's whole table (no
# attention code: sustained, 2 ms and 60 ms launches).
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_torch_heldout36_device.sh",
#       carry=[".whl"], timeout_s=540)
#
# Files under $OUT: run.log, bwd/ (torch_bwd_measure's runs.jsonl, provenance.json),
# s34/ and s35/ (provenance.json, sweep.jsonl, extras.tar.gz; on an H100), cal/ (on an H200:
# run_calibrate_one_command_device.sh's run.log and calibration.tar.gz),
# fwd_clock/torch-fwd-clock.json,
# load_clock/load-clock.json.
set -u -o pipefail
LIMIT_S=${SET36_LIMIT_S:-520}
. gpusim/validation/device_steps.sh
device_info
step set36 python3 -m gpusim.validation.torch_bwd_measure \
  --manifest data/h100/2026-12-07_torch_heldout36/manifest_configs.json --out "$OUT/bwd" \
  --budget-s 240
wheels
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  # sets 34 and 35 were measured on an H100: a repeat means the same card
  for s in 34:2026-12-06_tuner_heldout34 35:2026-12-06_grouping_heldout35; do
    mkdir -p "$OUT/s${s%%:*}" "/tmp/s${s%%:*}"
    OUT="$OUT/s${s%%:*}" long_context_set "data/h200/${s#*:}/manifest_configs.json" "/tmp/s${s%%:*}"
  done
else
  # an H200 (none lent since session 46): issue 19's one-command calibrate, full and --quick,
  # as run_calibrate_one_command_device.sh does it (its files in cal/calibration.tar.gz)
  mkdir -p "$OUT/cal"
  step calibrate env OUT="$OUT/cal" CAL_LIMIT_S=$(($(left) - 130)) \
    bash gpusim/validation/run_calibrate_one_command_device.sh
fi
step fwd_clock timeout 90 python3 -m gpusim.validation.torch_fwd_clock \
  --out "$OUT/fwd_clock/torch-fwd-clock.json"
mkdir -p "$OUT/load_clock"
step load_clock timeout $(($(left) - 10)) python3 -m gpusim.calibrate.load_clock \
  --out "$OUT/load_clock/load-clock.json"
echo "=== done in $(($(date +%s) - T0))s"
sleep 1
