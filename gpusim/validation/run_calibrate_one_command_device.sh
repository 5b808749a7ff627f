#!/usr/bin/env bash
# One `gpusim calibrate` (the suite, then the stand-alone records in their own processes) on
# the lent card, full and --quick, each timed: the complete profile from one command.
#
#   run(command="bash gpusim/validation/run_calibrate_one_command_device.sh", carry=[".whl"],
#       timeout_s=600)
#
# The base profile is the card's: h100-sxm5 on an H100, h200-sxm-datasheet on an H200.
# CAL_FULL=0 runs --quick alone (about two minutes).
# Files under $OUT: run.log and calibration.tar.gz (full/ and quick/: the profile, the raw
# results, the records folder, the command's --json output, the wall time).
set -u -o pipefail
LIMIT_S=${CAL_LIMIT_S:-560}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log
wheels
device_info
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  BASE=h100-sxm5 CARD=h100
else
  BASE=h200-sxm-datasheet CARD=h200
fi
cal() {  # cal KIND SECONDS [--quick]: one command (timeout SECONDS), its wall time in ms
  local kind=$1 limit=$2 t0
  shift 2
  mkdir -p "$OUT/$kind"
  t0=$(date +%s%N)
  timeout "$limit" python3 -m gpusim.cli.main calibrate "$@" --base-profile "$BASE" --name "$CARD-$kind" \
    --out "$OUT/$kind/$CARD-$kind.yaml" --json > "$OUT/$kind/out.json"
  echo "$(( ($(date +%s%N) - t0) / 1000000 ))" > "$OUT/$kind/wall_ms.txt"
}
[ "${CAL_FULL:-1}" = 1 ] && step full cal full 330
step quick cal quick $(($(left) - 15)) --quick
tar czf /tmp/calibration.tar.gz -C "$OUT" --exclude=run.log . && \
  find "$OUT" -mindepth 1 -maxdepth 1 ! -name run.log -exec rm -rf {} + && \
  mv /tmp/calibration.tar.gz "$OUT/"
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
