"""The masked-step rule of the wgmma ping-pong bound (gpusim/engine/wgmma_rates.py,
``LONE_STREAM_ISSUE``; on by default since held-out set 6): the steady step still takes the
bound and a masked step's extra instructions cost the profile's cycles per instruction of one
consumer warp; off, they cost the SM's full issue rate."""

from __future__ import annotations

import pytest

from algorithms import get_algorithm
from gpusim.counting import traced_classes
from gpusim.engine.clock import TICKS_PER_S
from gpusim.engine.plan import step_work
from gpusim.engine.prepare import planned_programs, steady_step
from gpusim.engine.rates import rates_for
from gpusim.engine.wgmma_rates import (
    LONE_STREAM_ISSUE,
    WARPS_PER_WARPGROUP,
    lone_stream_masks,
    pingpong_rates,
)
from gpusim.profiles.loader import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

HW = load_profile("h200-sxm")


def _kernel(d: int, block_n: int, causal: bool):
    w = Workload(batch=1, heads=2, seq_len_q=1024, seq_len_k=1024, head_dim=d, dtype="bf16",
                 causal=causal)  # fmt: skip
    s = Schedule(block_m=128, block_n=block_n, warps=8, stages=2, mma="wgmma",
                 tile_copy="tma", producer_warps=4)  # fmt: skip
    k = get_algorithm("flash2").kernels(w, s)[0]
    steps = [x for p in planned_programs(traced_classes(k, [200000])) for x in p.steps]
    steps = [x for x in steps if x.mma_flops > 0]
    rates = rates_for(HW, "bf16", s.warps, schedule=s, head_dim=d).for_kernel(True)
    return k, rates, steady_step(steps), max(steps, key=lambda x: x.instrs)


def _ticks(rates, step) -> float:
    return rates.step_ticks(step_work(step, rates)) * rates.sched_scale


def test_the_masked_step_rule_is_on_by_default_and_can_be_turned_off():
    """Adopted by held-out set 6's rule (reports/kernels/wgmma/heldout6)."""
    assert LONE_STREAM_ISSUE.get() is True
    k, rates, steady, _ = _kernel(128, 128, True)
    on = pingpong_rates(rates, HW, k, lambda: steady)[0]
    assert on.pipe_per_s["issue"] < rates.pipe_per_s["issue"]
    with lone_stream_masks(False):
        off = pingpong_rates(rates, HW, k, lambda: steady)[0]
    assert LONE_STREAM_ISSUE.get() is True
    assert off.pipe_per_s["issue"] == rates.pipe_per_s["issue"]


@pytest.mark.parametrize(("d", "block_n"), [(64, 128), (128, 96), (128, 176), (256, 64)])
def test_the_steady_step_is_unchanged_and_a_masked_step_pays_the_lone_stream(d, block_n):
    k, rates, steady, masked = _kernel(d, block_n, True)
    assert masked.instrs > steady.instrs  # a causal kernel's diagonal block is masked
    with lone_stream_masks(False):
        off = pingpong_rates(rates, HW, k, lambda: steady)[0]
    with lone_stream_masks():
        on, note = pingpong_rates(rates, HW, k, lambda: steady)
    assert "lone streams" in note
    assert _ticks(on, steady) == pytest.approx(_ticks(off, steady), rel=1e-6)
    c = HW.wgmma_softmax_cycles_per_instr_2_warpgroups.value
    extra = step_work(masked, on)["issue"] - step_work(steady, on)["issue"]
    per_warp = extra / (2 * WARPS_PER_WARPGROUP) * c / rates.clock_hz * TICKS_PER_S
    took = _ticks(on, masked) - _ticks(on, steady)
    products = step_work(steady, on)["tensor"] / on.pipe_per_tick["tensor"]
    # at most the lone stream's cycles for the extra instructions; at least what is left of
    # them beyond the products' time where the products bound the step (d256)
    assert took <= per_warp * 1.001
    assert took >= per_warp - products * 0.5
    # without the rule the mask costs a fraction of that (the SM's full issue rate)
    assert _ticks(off, masked) - _ticks(off, steady) <= took * (1 + 1e-9)


def test_one_warpgroup_is_untouched_without_its_step():
    """One consumer warpgroup keeps the overlap share's step with the one-warpgroup step off
    (as before wgmma decode set 3) or on a profile without its field."""
    from gpusim.engine.wgmma_rates import ONE_WARPGROUP_STEP

    w = Workload(batch=1, heads=2, seq_len_q=1024, seq_len_k=1024, head_dim=256, dtype="bf16")
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2, mma="wgmma", tile_copy="tma",
                 producer_warps=4)  # fmt: skip
    k = get_algorithm("flash2").kernels(w, s)[0]
    rates = rates_for(HW, "bf16", s.warps, schedule=s, head_dim=256).for_kernel(True)
    token = ONE_WARPGROUP_STEP.set(False)
    try:
        with lone_stream_masks():
            assert pingpong_rates(rates, HW, k, lambda: None) is None
    finally:
        ONE_WARPGROUP_STEP.reset(token)
    without = HW.model_copy(update={"wgmma_softmax_cycles_per_instr_1_warpgroups": None})
    with lone_stream_masks():
        assert pingpong_rates(rates, without, k, lambda: None) is None


def test_a_per_tile_c_is_taken_where_the_profile_has_that_tile():
    """wgmma_step's rows off its paired shapes give a per-tile c
    (``wgmma_softmax_cycles_per_instr_by_block_n``): the ping-pong bound takes it for that
    tile only; no shipped profile has the table yet, so the field stands everywhere."""
    from gpusim.engine.wgmma_rates import pingpong_cpi
    from gpusim.profiles.schema import SourcedRateTable

    field = HW.wgmma_softmax_cycles_per_instr_2_warpgroups.value
    assert HW.wgmma_softmax_cycles_per_instr_by_block_n is None
    assert pingpong_cpi(HW, 2, 176, 128) == field
    table = SourcedRateTable(value={"2/128": [[176, 6.5]]}, source="a test")
    hw = HW.model_copy(update={"wgmma_softmax_cycles_per_instr_by_block_n": table})
    assert pingpong_cpi(hw, 2, 176, 128) == 6.5
    assert pingpong_cpi(hw, 2, 128, 128) == field
    assert pingpong_cpi(hw, 2, 176, 64) == field
    assert pingpong_cpi(hw, 1, 176, 128) == HW.wgmma_softmax_cycles_per_instr_1_warpgroups.value
    slow, base = (_ticks(*_rates_of(p, 176)) for p in (hw, HW))
    assert slow > base


def _rates_of(hw, block_n: int):
    w = Workload(batch=1, heads=2, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="bf16",
                 causal=False)  # fmt: skip
    s = Schedule(block_m=128, block_n=block_n, warps=8, stages=2, mma="wgmma",
                 tile_copy="tma", producer_warps=4)  # fmt: skip
    k = get_algorithm("flash2").kernels(w, s)[0]
    steps = [x for p in planned_programs(traced_classes(k, [200000])) for x in p.steps]
    steady = steady_step([x for x in steps if x.mma_flops > 0])
    rates = rates_for(hw, "bf16", s.warps, schedule=s, head_dim=128).for_kernel(True)
    pp, _ = pingpong_rates(rates, hw, k, lambda: steady)
    return pp, steady
