"""The engine's step rule against the recorded smem_overlap microbenchmark (H200).

The rule (gpusim/engine/rates.py): a step's MMA phase takes the longer of its tensor and
shared-memory times, then its softmax phase follows. Recorded: ldmatrix loops feeding
mma.sync, then a softmax pass, at 4 warps per scheduler (data/h200/2026-11-30_calibration/
smem_overlap_h200_2026-11-30).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.smem_overlap import LDSM_X4_BYTES
from gpusim.profiles import load_profile

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_smem_overlap/smem-overlap-h200.json"
)
#: Per warp-iteration: 32 values per thread through one EX2 each (the softmax pass).
EX2_PER_WARP_ITER = 32 * 32
HMMA_FLOPS = 2 * 16 * 8 * 16
SCHEDULERS = 4


@pytest.fixture(scope="module")
def per_warp_cycles():
    rows = json.loads(RECORD.read_text())["rows"]
    return {
        (r["nld"], r["mma_per_ld"], r["nmma_reg"], r["rounds"], r["threads"], r["ctas_per_sm"]): (
            r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
        )
        for r in rows
    }


def _pipe_cycles(nld: int, nmma: int):
    p = load_profile("h200-sxm")
    tensor = nmma * HMMA_FLOPS / (p.mma_sync_flops_per_clk_per_sm.fp16.value / SCHEDULERS)
    smem = nld * LDSM_X4_BYTES / (p.smem_bandwidth_bytes_per_clk_per_sm.value / SCHEDULERS)
    softmax = EX2_PER_WARP_ITER / (p.sfu_exp_per_clk_per_sm.value / SCHEDULERS)
    return tensor, smem, softmax


def test_ldmatrix_alone_runs_at_the_calibrated_shared_memory_rate(per_warp_cycles):
    _, smem, _ = _pipe_cycles(32, 0)
    for shape in ((512, 1), (128, 4)):
        assert per_warp_cycles[(32, 0, 0, 0, *shape)] == pytest.approx(smem, rel=0.07)


@pytest.mark.parametrize(("nld", "per_ld"), [(32, 2), (16, 4)])
@pytest.mark.parametrize("shape", [(512, 1), (128, 4)])
def test_the_serial_step_rule_is_within_10_percent(per_warp_cycles, nld, per_ld, shape):
    tensor, smem, softmax = _pipe_cycles(nld, nld * per_ld)
    rule = max(tensor, smem) + softmax
    assert per_warp_cycles[(nld, per_ld, 0, 1, *shape)] == pytest.approx(rule, rel=0.10)


def test_inside_one_cta_shared_memory_does_not_run_beside_the_softmax(per_warp_cycles):
    """16 warps of one CTA: the serial rule fits, max(tensor + softmax, smem) does not."""
    tensor, smem, softmax = _pipe_cycles(32, 64)
    serial, overlapped = max(tensor, smem) + softmax, max(tensor + softmax, smem)
    measured = per_warp_cycles[(32, 2, 0, 1, 512, 1)]
    assert abs(measured / serial - 1) < abs(measured / overlapped - 1)


def test_across_ctas_shared_memory_runs_partly_under_another_ctas_softmax(per_warp_cycles):
    """4 CTAs of 4 warps, ldmatrix and an independent softmax: near the longer of the two,
    well below their sum; in one CTA of 16 warps, near the sum. (The engine keeps the sum:
    rates.SCHED_LANE says why.)"""
    ldsm = per_warp_cycles[(32, 0, 0, 0, 128, 4)]
    soft = per_warp_cycles[(0, 0, 0, 1, 128, 4)]
    across = per_warp_cycles[(32, 0, 0, 1, 128, 4)]
    inside = per_warp_cycles[(32, 0, 0, 1, 512, 1)]
    assert across < 0.8 * (ldsm + soft) and across < 1.2 * max(ldsm, soft)
    assert inside > 0.9 * (
        per_warp_cycles[(32, 0, 0, 0, 512, 1)] + per_warp_cycles[(0, 0, 0, 1, 512, 1)]
    )


def test_step_efficiency_with_few_warps_comes_from_the_load_product_softmax_loops():
    from gpusim.calibrate.smem_overlap import profile_entries

    entries = profile_entries(json.loads(RECORD.read_text()))
    one = entries["step_efficiency_1_warp_per_scheduler"]["value"]
    two = entries["step_efficiency_2_warps_per_scheduler"]["value"]
    assert (one, two) == (0.676, 0.917)
    cal = load_profile("h200-sxm")
    assert cal.step_efficiency_1_warp_per_scheduler.value == one
    assert cal.step_efficiency_2_warps_per_scheduler.value == two
