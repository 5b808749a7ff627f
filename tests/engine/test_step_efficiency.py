"""Few resident warps per scheduler: steps run at the profile's measured fraction of the rates."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.engine.rates import rates_for, step_efficiency
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

CAL = load_profile("h200-sxm-calibrated")


ONE, TWO, FOUR = 0.668, 0.858, 0.928  # one CTA, 1, 2 and 4 warps per scheduler
GAIN2, GAIN4 = 1.124, 1.145  # 2 and 4 CTAs against one with as many warps


def test_the_profile_holds_the_recorded_factors():
    got = (
        CAL.step_efficiency_1_warp_per_scheduler.value,
        CAL.step_efficiency_2_warps_per_scheduler.value,
        CAL.step_efficiency_4_warps_per_scheduler.value,
        CAL.cta_overlap_gain_2_ctas.value,
        CAL.cta_overlap_gain_4_ctas.value,
    )
    assert got == (ONE, TWO, FOUR, GAIN2, GAIN4)


@pytest.mark.parametrize(
    ("warps_per_sm", "ctas", "expected"),
    [(2, 1, ONE), (4, 1, ONE), (6, 1, (ONE + TWO) / 2), (8, 1, TWO), (12, 1, (TWO + FOUR) / 2),
     (16, 1, FOUR), (64, 1, FOUR), (8, 2, TWO * GAIN2),
     (12, 3, (TWO + FOUR) / 2 * (GAIN2 + GAIN4) / 2), (16, 4, FOUR * GAIN4), (20, 5, FOUR * GAIN4)],
)  # fmt: skip
def test_measured_points_and_linear_between(warps_per_sm, ctas, expected):
    assert step_efficiency(CAL, warps_per_sm, ctas) == pytest.approx(expected)


def test_one_cta_of_many_warps_is_slower_than_as_many_warps_in_several_ctas():
    assert step_efficiency(CAL, 8, 2) > step_efficiency(CAL, 8, 1)
    assert step_efficiency(CAL, 16, 4) > step_efficiency(CAL, 16, 1)


def test_without_the_four_warp_value_and_the_gains_four_warps_run_at_the_pipe_rates():
    older = CAL.model_copy(
        update={
            "step_efficiency_4_warps_per_scheduler": None,
            "cta_overlap_gain_2_ctas": None,
            "cta_overlap_gain_4_ctas": None,
        }
    )
    assert step_efficiency(older, 16, 4) == 1.0
    assert step_efficiency(older, 8, 2) == pytest.approx(TWO)


def test_profiles_without_the_measurement_run_at_full_rate():
    assert step_efficiency(load_profile("h200-sxm"), 4) == 1.0


def test_above_one_the_pipes_keep_their_peaks_and_the_phases_overlap():
    r = rates_for(CAL, "bf16")
    fast = r.at_step_efficiency(1.25)
    assert fast.pipe_per_s == r.pipe_per_s
    assert fast.sched_scale == pytest.approx(r.sched_scale / 1.25)
    slow = r.at_step_efficiency(0.8)
    assert slow.pipe_per_s["tensor"] == pytest.approx(0.8 * r.pipe_per_s["tensor"])
    assert slow.sched_scale == r.sched_scale


def test_rates_scale_the_sm_lanes_not_the_memory():
    r = rates_for(CAL, "bf16")
    slow = r.at_efficiency(0.5)
    assert slow.pipe_per_s["tensor"] == pytest.approx(r.pipe_per_s["tensor"] / 2)
    assert slow.pipe_per_s["issue"] == pytest.approx(r.pipe_per_s["issue"] / 2)
    assert slow.dram_bytes_per_s == r.dram_bytes_per_s and slow.clock_hz == r.clock_hz


def test_one_four_warp_cta_per_sm_is_slower_than_two():
    """1 warp per scheduler against 2: the same tiles, more exposed latency (H200: 1.38x)."""
    w = Workload(batch=4, heads=16, seq_len_q=4096, seq_len_k=4096, dtype="bf16")
    s = Schedule(block_m=128, block_n=64, warps=4, stages=2)
    two = simulate("flash2", w, s, CAL)
    one = simulate("flash2", w, s.model_copy(update={"stages": 3}), CAL)
    assert (one.ctas_per_sm, two.ctas_per_sm) == (1, 2)
    assert one.runtime_s > 1.15 * two.runtime_s
