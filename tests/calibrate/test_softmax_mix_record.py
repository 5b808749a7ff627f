"""The recorded softmax_mix run on the H200: what its README says, recomputed from its JSON
(data/h200/2026-11-30_calibration_softmax_mix)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.smem_overlap import SHAPES
from gpusim.calibrate.softmax_mix import EXTRA
from gpusim.calibrate.warp_loops import STEP_LOOPS

ROOT = Path(__file__).resolve().parents[2] / "data/h200"
RECORD = ROOT / "2026-11-30_calibration_softmax_mix/softmax-mix-h200.json"
OVERLAP = ROOT / "2026-11-30_calibration_smem_overlap/smem-overlap-h200.json"


@pytest.fixture(scope="module")
def per_warp():
    rows = json.loads(RECORD.read_text())["rows"]
    return {
        (r["nld"], r["mma_per_ld"], r["extra"], r["threads"], r["ctas_per_sm"]): (
            r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
        )
        for r in rows
    }


def _gains(per_warp, loop, extra):
    """One CTA over 2 (4) CTAs of 4 warps with as many warps per scheduler."""
    c = {sh: per_warp[(*loop, extra, *sh)] for sh in SHAPES}
    return c[(256, 1)] / c[(128, 2)], c[(512, 1)] / c[(128, 4)]


def test_every_loop_mix_and_shape_was_timed(per_warp):
    assert set(per_warp) == {(*lp, e, *sh) for lp in STEP_LOOPS for e in EXTRA for sh in SHAPES}


def test_without_extra_work_the_loops_repeat_smem_overlap(per_warp):
    for r in json.loads(OVERLAP.read_text())["rows"]:
        if (r["nld"], r["mma_per_ld"]) in STEP_LOOPS and r["rounds"] == 1:
            old = r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
            new = per_warp[(r["nld"], r["mma_per_ld"], 0, r["threads"], r["ctas_per_sm"])]
            assert new == pytest.approx(old, rel=0.02)


def test_the_gain_of_several_ctas_goes_with_an_issue_bound_softmax(per_warp):
    for loop in STEP_LOOPS:
        mufu_bound, issue_bound = _gains(per_warp, loop, 0), _gains(per_warp, loop, 8)
        assert max(mufu_bound) > 1.10  # MUFU-bound: 1.06-1.18
        assert all(0.98 < g < 1.03 for g in issue_bound), issue_bound
        assert all(b < a for a, b in zip(mufu_bound, issue_bound, strict=True))
