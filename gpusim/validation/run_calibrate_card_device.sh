#!/usr/bin/env bash
# The whole calibration of the card the device lends, in one call: `gpusim calibrate` (the
# suite) and the stand-alone microbenchmarks whose records the H200's profile takes from
# separate runs (wgmma, wgmma_burst, wgmma_step, cta_life, dram_read, l2_atomics, local_mem,
# l2_bytes --hot, kv_walk --drift). No attention kernel runs. About 6 minutes. It made
# data/h100/2026-12-05_calibration; since then `gpusim calibrate` runs the same records itself
# (gpusim/calibrate/records_stage.py: run_calibrate_one_command_device.sh).
#
#   run(command="bash gpusim/validation/run_calibrate_card_device.sh h100-sxm5 h100-sxm5-measured",
#       carry=[".whl"], timeout_s=600)
#
# $1 the base profile (whose unmeasured, cited values are kept), $2 the written profile's name.
# Files under $OUT: run.log and calibration.tar.gz holding cal/ (the profile, its raw results, the command's JSON); one
# folder per stand-alone benchmark with its record; wgmma/ptxas.txt.
set -u -o pipefail
BASE=${1:?name the base profile, e.g. h100-sxm5}
NAME=${2:?name the written profile, e.g. h100-sxm5-measured}
LIMIT_S=${CAL_LIMIT_S:-560}
. "$(dirname "$0")/device_steps.sh"  # left, step, device_info, wheels, run.log
wheels
device_info
nvidia-smi -q -d CLOCK,POWER > "$OUT/smi_start.txt" 2>&1
ncu --version >> "$OUT/smi_start.txt" 2>&1
C="python3 -m gpusim.calibrate"
mkdir -p "$OUT/cal" "$OUT/wgmma" "$OUT/ws" "$OUT/cl" "$OUT/dr" "$OUT/la" "$OUT/lm" "$OUT/l2h" \
  "$OUT/kvd"
PARTS=${CAL_PARTS:-suite,wgmma,records}  # a retry can name only what failed
has() { case ",$PARTS," in *",$1,"*) return 0 ;; esac; return 1; }
if has suite; then
step calibrate timeout 200 python3 -m gpusim.cli.main calibrate --base-profile "$BASE" \
  --name "$NAME" --out "$OUT/cal/$NAME.yaml" --results "$OUT/cal/$NAME.results.json" --json \
  > "$OUT/cal/full.json"
fi
if has wgmma; then
# The wgmma record benchmarks share one sm_90a cubin (nvcc, as the H200's runs built it).
# nvcc needs the output folder to exist.
mkdir -p /tmp/wgmma_build
step wgmma_cubin python3 -c "
from pathlib import Path; from gpusim.calibrate.wgmma import build_cubin
p, log = build_cubin(Path('/tmp/wgmma_build')); Path('$OUT/wgmma/ptxas.txt').write_text(log)
Path('/tmp/wgmma_cubin_path').write_text(str(p))"
WG=$(cat /tmp/wgmma_cubin_path)
echo "wgmma cubin: $WG"
step wgmma timeout 150 $C.wgmma --cubin "$WG" --out "$OUT/wgmma/wgmma.json"
step wgmma_burst timeout 60 $C.wgmma_burst --cubin "$WG" --out "$OUT/wgmma/wgmma-burst.json"
step wgmma_step timeout $(($(left) - 150)) $C.wgmma_step --cubin "$WG" --out "$OUT/ws/wgmma-step.json"
fi
if has records; then
step dram_read timeout 40 $C.dram_read --out "$OUT/dr/dram-read.json"
step cta_life timeout 40 $C.cta_life --out "$OUT/cl/cta-life.json"
step l2_atomics timeout 30 $C.l2_atomics --out "$OUT/la/l2-atomics.json"
step local_mem timeout 30 $C.local_mem --out "$OUT/lm/local-mem.json"
step l2_hot timeout 40 $C.l2_bytes --hot --out "$OUT/l2h/l2-survive-hot.json"
step kv_drift timeout $(($(left) - 10)) $C.kv_walk --drift --out "$OUT/kvd/kv-walk-drift.json"
fi
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv >> "$OUT/run.log"
# At most 8 files come back from a call: everything but the log in one archive.
tar czf /tmp/calibration.tar.gz -C "$OUT" --exclude=run.log . && \
  find "$OUT" -mindepth 1 -maxdepth 1 ! -name run.log -exec rm -rf {} + && \
  mv /tmp/calibration.tar.gz "$OUT/"
echo "=== done in $(($(date +%s) - T0))s"
sleep 2
