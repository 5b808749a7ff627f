"""An SM's schedulers serve its computing CTAs at the step efficiency of that many CTAs
(gpusim/engine/active_ctas.py), and staged output stores cost their measured SM cycles."""

from __future__ import annotations

import pytest

import gpusim
from gpusim.engine import active_ctas
from gpusim.engine.active_ctas import capacity_table
from gpusim.engine.rates import step_efficiency
from gpusim.profiles import load_profile

PIPE = load_profile("h200-sxm")


def _sim(w, s, profile=PIPE, on=True) -> float:
    with active_ctas.following(on):
        return gpusim.simulate("flash2", w, s, profile, detail="full").runtime_s


def test_the_table_is_each_count_s_efficiency_over_the_occupancy_s():
    table = capacity_table(lambda n: step_efficiency(PIPE, 4 * n), 2)
    assert table == pytest.approx((0.676 / 0.917, 1.0))
    three = capacity_table(lambda n: step_efficiency(PIPE, 4 * n), 3)
    assert three[0] < three[1] < three[2] == 1.0


def test_nothing_changes_for_one_cta_per_sm_or_an_unknown_efficiency():
    assert capacity_table(lambda n: 0.5, 1) == ()
    assert capacity_table(lambda n: None if n == 1 else 0.9, 2) == ()
    with active_ctas.following(False):
        assert capacity_table(lambda n: 0.5 * n, 2) == ()


def test_ctas_alone_on_their_sms_run_at_one_cta_s_efficiency():
    """132 CTAs of a kernel that fits two per SM: one on each SM, with one warp per
    scheduler, their steps at 0.676 of the rates, not the occupancy's 0.917."""
    w = gpusim.Workload(batch=1, heads=11, seq_len_q=1536, seq_len_k=1536, head_dim=128)
    s = gpusim.Schedule(block_m=128, block_n=64, warps=4, stages=2)
    assert gpusim.simulate("flash2", w, s, PIPE).ctas_per_sm == 2
    on, off = _sim(w, s), _sim(w, s, on=False)
    # the steps take 0.917 / 0.676 as long; the launch and the first tiles' wait do not
    assert 1.15 * off < on < off * 0.917 / 0.676


def test_a_kernel_of_one_cta_per_sm_is_untouched():
    w = gpusim.Workload(batch=1, heads=33, seq_len_q=1536, seq_len_k=1536, head_dim=128)
    s = gpusim.Schedule(block_m=128, block_n=128, warps=8, stages=2)
    assert gpusim.simulate("flash2", w, s, PIPE).ctas_per_sm == 1
    assert _sim(w, s) == _sim(w, s, on=False)


def test_staged_stores_cost_their_measured_cycles_per_cta():
    """One wave of one CTA per SM: each CTA issues its 32-KiB output block's 16-byte stores
    (calibrate/cta_life: 37.2 B/clk on the H200) before the bytes go."""
    from gpusim.engine.clock import ticks

    w = gpusim.Workload(batch=1, heads=132, seq_len_q=128, seq_len_k=1024, head_dim=128)
    s = gpusim.Schedule(block_m=128, block_n=128, warps=8, stages=2)
    bare = PIPE.model_copy(update={"staged_store_bytes_per_clk_per_sm": None})
    rate = PIPE.staged_store_bytes_per_clk_per_sm.value
    want = ticks(128 * 128 * 2 / rate / PIPE.sm_clock_stream_load_hz.value) / 1e12
    assert _sim(w, s) - _sim(w, s, bare) == pytest.approx(want, rel=0.02)
