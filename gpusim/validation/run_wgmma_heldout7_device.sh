#!/usr/bin/env bash
# wgmma held-out set 7's device call as it ran (data/h100/2026-12-06_wgmma_heldout7): the set,
# then the wgmma_step record on an H100 or the one-command calibrate on an H200.
exec env WGMMA_STEP=1 bash "$(dirname "$0")/run_wgmma_set_device.sh" heldout7
