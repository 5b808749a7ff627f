"""The engine's wgmma path on a test profile with synthetic wgmma fields (wgmma_fixture):
the products at the per-N rates and the clock under wgmma load, the softmax overlapped by
the profile's share, no ldmatrix traffic."""

from __future__ import annotations

import pytest

from gpusim.engine.rates import rates_for
from gpusim.engine.wgmma_rates import wgmma_rate, wgmma_step_rate
from gpusim.schedule import Schedule
from gpusim.workload import Workload
from tests.engine.wgmma_fixture import wgmma_profile

P = wgmma_profile()
S = Schedule(block_m=128, block_n=128, warps=8, stages=2, mma="wgmma", tile_copy="tma",
             producer_warps=4)  # fmt: skip


def _sim(w: Workload, s: Schedule = S, profile=P):
    import gpusim

    return gpusim.simulate("flash2", w, s, profile)


def test_rates_use_the_measured_table_and_clock():
    r = rates_for(P, "bf16", 8, schedule=S, head_dim=128)
    assert r.clock_hz == P.sm_clock_wgmma_load_hz.value
    per_clk = r.pipe_per_s["tensor"] / r.clock_hz
    assert per_clk == pytest.approx(wgmma_step_rate(P, "bf16", 128, 128))
    table = dict(P.wgmma_rate_by_n.value["bf16/smem"])
    assert wgmma_rate(P, "bf16", "smem", 128) == table[128]
    lo, hi = table[64], table[96]
    assert wgmma_rate(P, "bf16", "smem", 80) == pytest.approx((lo + hi) / 2)
    assert r.phase_overlap == P.wgmma_softmax_overlap_two_warpgroups.value


def test_the_burst_clock_wins_over_the_sustained_one_where_the_profile_has_it():
    burst = wgmma_profile(burst_hz=1.8e9)
    r = rates_for(burst, "bf16", 8, schedule=S, head_dim=128)
    assert r.clock_hz == 1.8e9
    base = rates_for(P, "bf16", 8, schedule=S, head_dim=128)
    assert r.pipe_per_s["tensor"] / base.pipe_per_s["tensor"] == pytest.approx(1.8 / 1.6)


def test_time_grows_with_the_work():
    small = _sim(
        Workload(batch=2, heads=16, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="bf16")
    )
    large = _sim(
        Workload(batch=2, heads=16, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    )
    assert large.runtime_s > 2.5 * small.runtime_s


def test_large_d128_is_bound_by_the_tensor_cores():
    w = Workload(batch=4, heads=16, seq_len_q=4096, seq_len_k=4096, head_dim=128, dtype="bf16")
    res = _sim(w)
    assert res.bound == "tensor"
    peak = P.sm_count.value * P.sm_clock_wgmma_load_hz.value * wgmma_step_rate(P, "bf16", 128, 128)
    assert 0.6 * peak < res.tflops * 1e12 <= peak


def test_more_overlap_is_faster():
    w = Workload(batch=2, heads=16, seq_len_q=2048, seq_len_k=2048, head_dim=64, dtype="bf16")
    s = S.model_copy(update={"block_n": 64})
    none, full = wgmma_profile(0.0), wgmma_profile(1.0)
    t_none, t_meas, t_full = (_sim(w, s, p).runtime_s for p in (none, P, full))
    assert t_none > t_meas > t_full


def test_no_ldmatrix_traffic_is_charged():
    from gpusim.counting import count

    w = Workload(batch=1, heads=2, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="bf16")
    wg = count("flash2", w, S).smem_traffic_bytes
    mma = count("flash2", w, Schedule(block_m=128, block_n=128, warps=8, stages=2))
    assert wg < mma.smem_traffic_bytes / 4


def _one_wave(d: int = 128) -> Workload:
    # 2 x 8 x 8 = 128 CTAs of 128 rows: one CTA per SM, one wave, compute-bound
    return Workload(batch=2, heads=8, seq_len_q=1024, seq_len_k=1024, head_dim=d, dtype="bf16")


def test_fragment_stores_add_their_cycles_to_each_cta():
    """The wgmma class stores O from its accumulators by default (flash3_wgmma.cu): a lone
    wave of CTAs lasts the stores' SM cycles longer than with staged stores, whose 16-byte
    stores issue four times faster (calibrate/cta_life: 8.42 and 37.2 B/clk on the H200)."""
    from gpusim.engine.clock import ticks

    assert S.o_store is None
    frag = _sim(_one_wave())
    staged = _sim(_one_wave(), S.model_copy(update={"o_store": "staged"}))
    o_bytes = 128 * 128 * 2  # one CTA's output block
    clock = P.sm_clock_wgmma_load_hz.value
    want = (
        ticks(o_bytes / P.fragment_store_bytes_per_clk_per_sm.value / clock)
        - ticks(o_bytes / P.staged_store_bytes_per_clk_per_sm.value / clock)
    ) / 1e12
    assert frag.runtime_s - staged.runtime_s == pytest.approx(want, rel=0.02)
    # and twice the bytes, twice the cost
    frag2 = _sim(_one_wave(256), S.model_copy(update={"block_n": 64}))
    staged2 = _sim(_one_wave(256), S.model_copy(update={"block_n": 64, "o_store": "staged"}))
    assert frag2.runtime_s - staged2.runtime_s == pytest.approx(2 * want, rel=0.02)


def test_fragment_stores_need_the_measured_rate():
    import gpusim
    from gpusim.errors import GpusimError

    bare = P.model_copy(update={"fragment_store_bytes_per_clk_per_sm": None})
    with pytest.raises(GpusimError, match="lacks fragment_store_bytes_per_clk_per_sm") as err:
        _sim(_one_wave(), S, bare)
    assert "\n" not in str(err.value)
    # staged stores need no rate; nor does the project's mma.sync kernel (staged by default)
    assert _sim(_one_wave(), S.model_copy(update={"o_store": "staged"}), bare).runtime_s > 0
    w = _one_wave()
    assert gpusim.simulate("flash2", w, Schedule(), bare).runtime_s > 0
