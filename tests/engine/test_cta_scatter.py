"""CTAs that drift apart (KernelRun's work scale) and the DRAM cap of few bytes in flight."""

from __future__ import annotations

import statistics

import pytest

from algorithms import get_algorithm
from gpusim.engine import simulate
from gpusim.engine.kernel_run import SCATTER_STRATA, KernelRun
from gpusim.engine.prepare import dram_cost
from gpusim.profiles import load_profile
from gpusim.profiles.schema import SourcedCurve, SourcedFraction
from gpusim.schedule import Schedule
from gpusim.workload import Workload

W = Workload(batch=2, heads=8, seq_len_q=1024, seq_len_k=1024, head_dim=64, dtype="bf16")
S = Schedule(block_m=128, block_n=64, warps=4, stages=2)


def _with_scatter(value: float):
    base = load_profile("h200-sxm-datasheet")
    entry = SourcedFraction(value=value, source="test: a scatter to exercise the engine")
    return base.model_copy(update={"cta_duration_scatter": entry})


def test_a_scattered_run_is_deterministic_and_differs_from_lockstep():
    scattered = _with_scatter(0.02)
    a = simulate("flash2", W, S, scattered)
    b = simulate("flash2", W, S, scattered)
    assert a.runtime_s == b.runtime_s and a.dram_read_bytes == b.dram_read_bytes
    lockstep = simulate("flash2", W, S, load_profile("h200-sxm-datasheet"))
    assert a.runtime_s != lockstep.runtime_s
    # A 2 % scatter moves a kernel by a few per cent, not by its own size many times over.
    assert a.runtime_s == pytest.approx(lockstep.runtime_s, rel=0.15)


def test_no_scatter_is_lockstep_exactly():
    zero = simulate("flash2", W, S, _with_scatter(0.0))
    plain = simulate("flash2", W, S, load_profile("h200-sxm-datasheet"))
    assert zero.runtime_s == plain.runtime_s


def test_the_work_scales_have_mean_one_and_the_profiles_spread():
    class Run:  # the two attributes _work_scale reads
        groups_made = 0
        rates = load_profile("h200-sxm-datasheet")

    run = Run()
    run.rates = type("R", (), {"cta_scatter": 0.0126})()
    draws = []
    for k in range(4000):
        run.groups_made = k
        draws.append(KernelRun._work_scale(run))
    assert statistics.fmean(draws) == pytest.approx(1.0, abs=2e-4)
    assert statistics.pstdev(draws) == pytest.approx(0.0126, rel=0.05)
    assert SCATTER_STRATA >= 2


def _softmax_kernel():
    w = Workload(batch=1, heads=2, seq_len_q=16384, seq_len_k=16384, head_dim=64, dtype="fp16")
    s = Schedule(block_m=128, block_n=128, warps=4, stages=2)
    return next(k for k in get_algorithm("standard").kernels(w, s) if k.name == "softmax_row")


def test_few_bytes_in_flight_cost_dram_bandwidth_by_the_measured_share():
    curve = SourcedCurve(value=[(2048.0, 0.3), (12288.0, 0.8), (65536.0, 1.0)],
                         source="test: a curve shaped like the H200's")  # fmt: skip
    profile = load_profile("h200-sxm-datasheet").model_copy(
        update={"dram_share_by_inflight": curve}
    )
    k = _softmax_kernel()
    assert k.load_bytes_in_flight_per_thread() == 32  # two 16-byte loads (its SASS)
    # 3 CTAs of 128 threads keep 3 x 128 x 32 = 12 KiB in flight per SM: 80 % of the bandwidth.
    assert dram_cost(profile, k, 3 * 128) == pytest.approx(1 / 0.8)
    assert dram_cost(profile, k, 64 * 128) == pytest.approx(1.0)
    assert dram_cost(load_profile("h200-sxm-datasheet"), k, 3 * 128) == 1.0  # no curve: no cap


def test_tile_copies_say_nothing_about_bytes_in_flight():
    flash = get_algorithm("flash2").kernels(W, S)[0]
    assert flash.load_bytes_in_flight_per_thread() is None
    assert dram_cost(load_profile("h200-sxm"), flash, 256) == 1.0
