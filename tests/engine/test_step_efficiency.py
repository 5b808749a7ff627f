"""Few resident warps per scheduler: steps run at the profile's measured fraction of the rates."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.engine.rates import rates_for, step_efficiency
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

CAL = load_profile("h200-sxm")


@pytest.mark.parametrize(
    ("warps_per_sm", "expected"),
    [(2, 0.676), (4, 0.676), (6, (0.676 + 0.917) / 2), (8, 0.917), (12, (0.917 + 1) / 2),
     (16, 1.0), (64, 1.0)],
)  # fmt: skip
def test_measured_points_and_linear_between(warps_per_sm, expected):
    assert step_efficiency(CAL, warps_per_sm) == pytest.approx(expected)


def test_profiles_without_the_measurement_run_at_full_rate():
    assert step_efficiency(load_profile("h200-sxm-datasheet"), 4) == 1.0


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
