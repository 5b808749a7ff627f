#!/usr/bin/env bash
# The device call carries the checkout's tracked files (and `carry`), at most 64 MiB; the
# committed data is near that. `light` untracks raw files no device script reads (they stay
# on disk, ignored through .git/info/exclude) so that a call travels; `restore` tracks them
# again. Run `light` right before a device call and `restore` right after it, and commit
# nothing in between (the index would record them deleted).
#
#   bash gpusim/validation/device_travel.sh light     # then run(...)
#   bash gpusim/validation/device_travel.sh restore   # git status is clean again
set -eu -o pipefail
cd "$(git rev-parse --show-toplevel)"
FILES=(
  data/h200/2026-12-02_calibration/h200-results.json
  data/h100/2026-12-05_calibration/suite/cal/h100-sxm5-measured.results.json
  data/h100/2026-12-05_calibrate_one_command_attempts/second/calibration.tar.gz
  data/h100/2026-12-05_calibrate_one_command_evicted/calibration.tar.gz
  data/h100/2026-12-06_calibrate_full_and_cut_quick/calibration.tar.gz
  data/h100/2026-12-06_calibrate_quick_background_build/calibration.tar.gz
  data/h100/2026-12-06_calibrate_quick_step_one_repeat/calibration.tar.gz
  data/h100/2026-12-06_calibrate_quick_repeat/calibration.tar.gz
  data/h100/2026-12-06_calibrate_quick_host_median/calibration.tar.gz
  data/h100/2026-12-05_calibrate_one_command/full/raw.tar.gz
  data/h100/2026-12-06_calibrate_quick_release/calibration.tar.gz
  data/h100/2026-12-06_calibrate_quick_step_stream/calibration.tar.gz
  data/h100/2026-12-06_cta_stamps_sets32_33/stamps-heldout32.json
  data/h100/2026-12-06_cta_stamps_sets32_33/stamps-heldout33.json
  data/h100/2026-12-06_cta_stamps/stamps-heldout31.json
  data/h100/2026-12-06_calibrate_quick_overlap/calibration.tar.gz
  data/h100/2026-12-06_calibrate_quick_records_first/calibration.tar.gz
  data/h100/2026-12-06_calibrate_quick_step_one/calibration.tar.gz
  data/h200/2026-11-30_kernels_bench/bench.json
  data/h200/2026-11-30_validation_dram21/ncu.json
  data/h200/2026-12-04_calibrate_quick/quick/h200-quick.results.json
  data/h200/2026-12-02_calibration/quick/h200-quick-results.json
  data/h200/2026-12-02_torch_flash_sass/torch_flash_fwd.sass.gz
  data/h200/2026-12-05_torch_flash_bwd_sass/torch_flash_bwd.sass.gz
  data/h200/2026-12-03_calibration_wgmma/wgmma_sass.txt.gz
  data/h100/2026-12-06_calibrate_quick_profile/suite.prof
  data/h200/2026-12-07_calibrate_one_command/full/raw.tar.gz
  data/h200/2026-12-07_calibrate_one_command/quick/raw.tar.gz
  data/h100/2026-12-05_calibrate_one_command/quick/raw.tar.gz
  data/h200/2026-11-30_calibration_l2_survive/l2-bytes-h200.json
  data/h200/2026-11-30_calibration_l2_survive/l2-survive-writes-h200.json
  data/h200/2026-11-30_calibration_l2_survive/l2-survive-fine-h200.json
  data/h200/2026-11-30_calibration_cta_scatter/cta-scatter-h200.json
)
EXCLUDE=.git/info/exclude
case "${1:-}" in
  light)
    if ! git diff --cached --quiet; then
      echo "device_travel: the index has staged changes; commit or unstage them first" >&2
      exit 2
    fi
    git rm -q --cached -- "${FILES[@]}"
    printf '/%s\n' "${FILES[@]}" >> "$EXCLUDE"
    ;;
  restore)
    for f in "${FILES[@]}"; do
      grep -vxF "/$f" "$EXCLUDE" > "$EXCLUDE.tmp" || true
      mv "$EXCLUDE.tmp" "$EXCLUDE"
    done
    git add -- "${FILES[@]}"
    ;;
  *)
    echo "usage: device_travel.sh light|restore" >&2
    exit 2
    ;;
esac
git status --short
