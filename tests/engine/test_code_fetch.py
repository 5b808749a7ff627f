"""A kernel's code fetched once per CTA: the issue it adds, and the runs that pay it."""

import pytest

import gpusim
from gpusim.engine.code_fetch import INSTRUCTION_BYTES, fetch_issue_per_warp
from gpusim.profiles.loader import load_profile
from gpusim.profiles.schema import SourcedCurve

CURVE = [(64 * 1024.0, 0.0), (128 * 1024.0, 0.2), (192 * 1024.0, 0.6)]


def test_code_the_cache_holds_costs_nothing_and_longer_code_costs_more():
    assert fetch_issue_per_warp(32 * 1024, CURVE) == 0.0
    # 128 KiB: 8192 instructions at a fifth of the issue slots lost take 8192 / 0.8 slots
    assert fetch_issue_per_warp(128 * 1024, CURVE) == pytest.approx(8192 * 0.25)
    costs = [fetch_issue_per_warp(k * 1024, CURVE) for k in (96, 128, 160, 192, 256)]
    assert costs == sorted(costs) and costs[-1] == pytest.approx(16384 * 1.5)
    assert INSTRUCTION_BYTES == 16


def _profile(curve):
    p = load_profile("h100-sxm5")
    value = None if curve is None else SourcedCurve(value=curve, source="a test's curve, made up")
    return p.model_copy(update={"icache_fetch_share_by_code_bytes": value})


def _run(profile, code_bytes, causal=True):
    w = gpusim.Workload(batch=8, heads=16, seq_len=704, head_dim=64, dtype="bf16", causal=causal)
    s = gpusim.Schedule(block_m=128, block_n=128, warps=4, stages=1, code_bytes=code_bytes)
    return gpusim.simulate("flash2", w, s, profile)


def test_a_short_grid_pays_its_code_where_the_profile_measured_the_cache():
    with_curve = _profile(CURVE)
    base = _run(with_curve, None).runtime_s
    small = _run(with_curve, 32 * 1024).runtime_s
    long = _run(with_curve, 160 * 1024).runtime_s
    assert small == base < long  # code the cache holds changes nothing
    longer = _run(with_curve, 192 * 1024).runtime_s
    assert longer > long
    assert not _run(with_curve, 160 * 1024, causal=False).kernels[0].timing_note


def test_without_the_curve_nothing_is_charged_and_the_kernel_says_so():
    bare = _profile(None)
    r = _run(bare, 160 * 1024)
    assert r.runtime_s == _run(bare, None).runtime_s
    notes = [k.timing_note for k in r.kernels]
    assert notes and all(n and "no instruction-cache curve" in n for n in notes)
    assert all(k.timing_note is None for k in _run(bare, None).kernels)
