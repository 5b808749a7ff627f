"""The engine takes its hardware facts from the profile: change one there and the engine's
rates, occupancy and core model follow (nothing of them is a constant in code)."""

from __future__ import annotations

import pytest

from gpusim.engine.core_model import CoreTiming
from gpusim.engine.rates import rates_for
from gpusim.occupancy import occupancy
from gpusim.profiles import load_profile
from gpusim.profiles.schema import Sourced


def _with(profile, **values):
    update = {
        k: Sourced[type(getattr(profile, k).value)](value=v, source="test: changed value")
        for k, v in values.items()
    }
    return profile.model_copy(update=update)


@pytest.fixture(scope="module")
def h200():
    return load_profile("h200-sxm-datasheet")


def test_the_issue_lane_follows_the_schedulers_and_their_issue_rate(h200):
    base = rates_for(h200, "fp16").pipe_per_s["issue"]
    assert rates_for(_with(h200, warp_schedulers_per_sm=2), "fp16").pipe_per_s["issue"] == (
        pytest.approx(base / 2)
    )
    doubled = _with(h200, issue_warp_instrs_per_clk_per_scheduler=2.0)
    assert rates_for(doubled, "fp16").pipe_per_s["issue"] == pytest.approx(2 * base)


def test_the_barrier_cost_is_the_profiles_fit(h200):
    r = rates_for(h200, "fp16", warps=8)
    p = h200.barrier_base_cycles.value + 8 * h200.barrier_cycles_per_warp.value
    assert r.barrier_cycles == p
    slower = rates_for(_with(h200, barrier_cycles_per_warp=4.0), "fp16", warps=8)
    assert slower.barrier_cycles == p + 8 * 2.0
    assert slower.barrier_ticks > r.barrier_ticks


def test_step_efficiency_counts_warps_per_the_profiles_schedulers():
    from gpusim.engine.rates import step_efficiency

    p = load_profile("h200-sxm")
    one = p.step_efficiency_1_warp_per_scheduler.value
    assert step_efficiency(p, 4) == one  # one warp on each of 4 schedulers
    assert step_efficiency(_with(p, warp_schedulers_per_sm=2), 4) > one  # two on each of 2


def test_occupancy_counts_warps_of_the_profiles_size(h200):
    base = occupancy(h200, 0, 256, 32)
    wide = occupancy(_with(h200, warp_size_threads=64), 0, 256, 32)
    assert (base.warps_per_cta, wide.warps_per_cta) == (8, 4)


def test_the_core_model_has_the_profiles_schedulers():
    p = load_profile("h200-sxm-core")
    assert CoreTiming.from_profile(p).schedulers == p.warp_schedulers_per_sm.value
    assert CoreTiming.from_profile(_with(p, warp_schedulers_per_sm=2)).schedulers == 2


def test_the_l2_line_size_reaches_the_engine(h200):
    assert rates_for(_with(h200, l2_line_bytes=64), "fp16").l2_line_bytes == 64
