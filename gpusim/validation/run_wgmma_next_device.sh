#!/usr/bin/env bash
# Issue 20's set 6 device call as it ran (data/h100/2026-12-05_wgmma_heldout6): held-out set 6,
# then the wgmma_step record with the rows the model lacked, on whichever card is lent.
#
#   run(command="bash gpusim/validation/run_wgmma_next_device.sh", carry=[".whl"], timeout_s=420)
exec env CALIBRATE_ON_H200=0 WGMMA_STEP=1 WGMMA_SET_LIMIT_S=400 \
  bash "$(dirname "$0")/run_wgmma_set_device.sh" heldout6
