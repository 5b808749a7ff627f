"""The recorded barrier_interval run on the H200: what its README says, recomputed from its JSON
(data/h200/2026-11-30_calibration_barrier_interval)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.barrier_interval import SYNC_EVERY
from gpusim.calibrate.smem_overlap import SHAPES
from gpusim.calibrate.warp_loops import STEP_LOOPS

ROOT = Path(__file__).resolve().parents[2] / "data/h200"
RECORD = ROOT / "2026-11-30_calibration_barrier_interval/barrier-interval-h200.json"
OVERLAP = ROOT / "2026-11-30_calibration_smem_overlap/smem-overlap-h200.json"


@pytest.fixture(scope="module")
def per_warp():
    rows = json.loads(RECORD.read_text())["rows"]
    return {
        (r["nld"], r["mma_per_ld"], r["sync_every"], r["threads"], r["ctas_per_sm"]): (
            r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
        )
        for r in rows
    }


def test_every_loop_interval_and_shape_was_timed(per_warp):
    want = {(*lp, e, *sh) for lp in STEP_LOOPS for e in SYNC_EVERY for sh in SHAPES}
    assert set(per_warp) == want


def test_a_barrier_every_iteration_repeats_the_smem_overlap_run(per_warp):
    """The same loops (one source, step_loop.cuh): within 3 % of the recorded run."""
    for r in json.loads(OVERLAP.read_text())["rows"]:
        if (r["nld"], r["mma_per_ld"]) in STEP_LOOPS and r["rounds"] == 1:
            old = r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
            new = per_warp[(r["nld"], r["mma_per_ld"], 1, r["threads"], r["ctas_per_sm"])]
            assert new == pytest.approx(old, rel=0.03)


def test_at_two_warps_per_scheduler_one_cta_is_slower_at_every_barrier_interval(per_warp):
    """One CTA of 8 warps against two CTAs of 4, with barriers as often (or none): 3-18 %."""
    ratios = [
        per_warp[(nld, per_ld, e, 256, 1)] / per_warp[(nld, per_ld, e, 128, 2)]
        for nld, per_ld in STEP_LOOPS
        for e in SYNC_EVERY
    ]
    assert min(ratios) > 1.02 and max(ratios) < 1.2, ratios


def test_at_four_warps_per_scheduler_one_cta_gains_from_fewer_barriers(per_warp):
    for nld, per_ld in STEP_LOOPS:
        assert per_warp[(nld, per_ld, 0, 512, 1)] < 0.85 * per_warp[(nld, per_ld, 1, 512, 1)]
