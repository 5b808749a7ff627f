"""The wave budget (wave_budget.py) and the cut's progress sums (scatter_skip.py)."""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

import pytest

from gpusim.engine import scatter_skip, simulate, wave_budget
from gpusim.errors import GpusimError
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _naive_progress(finished, ticks):
    out = [0.0] * len(ticks)
    for s, e, n, *_ in finished:
        for i, t in enumerate(ticks):
            if t >= e:
                out[i] += n
            elif t > s:
                out[i] += n * (t - s) / (e - s)
    return out


def test_progress_kept_sums_are_the_walk_over_every_group_bit_for_bit():
    rng = random.Random(7)
    run = SimpleNamespace(ctas_per_sm=2, sim=SimpleNamespace(rates=SimpleNamespace(sm_count=8)),
                          grid=SimpleNamespace(total=10_000))  # fmt: skip
    cut = scatter_skip.ScatterSkip(run)
    now = 0
    for step in range(400):
        now += rng.randint(1, 50)
        start = now - rng.randint(1, 400)
        cut.finished.append((start, now, rng.randint(1, 17), 0, 0, 0))
        if step % 5 == 0:
            # the window's marks: nondecreasing, once (step 200) moved back to force a restart
            lo = now - (3000 if step == 200 else rng.randint(0, 300))
            ticks = tuple(sorted(rng.randint(lo, now) for _ in range(3)))
            assert cut._progress(ticks) == _naive_progress(cut.finished, ticks)
    assert cut.base_groups > 300  # the kept prefix did the work


def test_a_grid_whose_cut_needs_too_many_waves_is_refused_before_its_first_wave():
    w = Workload(batch=8, heads=32, seq_len_q=100_000_000, seq_len_k=100_000_000, head_dim=64,
                 dtype="fp16")  # fmt: skip
    s = Schedule(block_m=128, block_n=128, warps=8, stages=2)
    t0 = time.perf_counter()
    cut = r"about [\d,]+ waves of CTAs even with its steady state cut short, past the"
    with pytest.raises(GpusimError, match=cut):
        simulate("flash2", w, s, load_profile("h200-sxm"))
    assert time.perf_counter() - t0 < 30  # refused, not run (the run would take 40 minutes)


def _long_grid(batch_heads: int):
    """A run of ``batch_heads`` batch-heads of 4096 CTAs on 132 slots in four SM groups of 33
    (a super-period of 33 batch-heads, 1024 waves), and its cut (warm-up: 6 waves)."""
    run = SimpleNamespace(name="k", ctas_per_sm=1, kv_group=1,
                          grid=SimpleNamespace(total=batch_heads * 4096, blocks_per_bh=4096,
                                               lump_end=False, lump_by_bh=False),
                          sm_groups=[SimpleNamespace(size=33)] * 4,
                          sim=SimpleNamespace(rates=SimpleNamespace(sm_count=132)))  # fmt: skip
    return run, scatter_skip.ScatterSkip(run)


def test_a_grid_the_cut_leaves_too_long_even_at_its_earliest_is_refused_at_the_start(
    monkeypatch,
):
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 1500)
    # 128 batch-heads, 3,972 waves: cut at the earliest (after 6 + 1,024 waves) two
    # super-periods go and 1,924 waves are left to simulate (the watch alone fits: 1,032)
    run, cut = _long_grid(128)
    with pytest.raises(GpusimError, match=r"about 1,924 waves of CTAs even with its steady"):
        wave_budget.check_before_start(run, False, cut)
    # 64 batch-heads, 1,986 waves: a cut after one super-period would leave less than another
    run, cut = _long_grid(64)
    with pytest.raises(GpusimError, match=r"about 1,986 waves of CTAs with a grid too short"):
        wave_budget.check_before_start(run, False, cut)
    # 200 batch-heads, 6,207 waves: five super-periods go, 143,360 CTAs (1,086.1 waves) are
    # left: a budget of 1,087 waves runs it, one of 1,086 refuses it
    run, cut = _long_grid(200)
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 1087)
    assert wave_budget.check_before_start(run, False, cut) == 1087 * 132
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 1086)
    with pytest.raises(GpusimError, match=r"about 1,087 waves of CTAs even with its steady"):
        wave_budget.check_before_start(run, False, cut)


def test_a_kernel_past_the_budget_while_running_stops_with_the_same_error(monkeypatch):
    run = SimpleNamespace(name="k", ctas_per_sm=2, end_cta=5000, next_cta=1000,
                          grid=SimpleNamespace(total=5000),
                          sim=SimpleNamespace(rates=SimpleNamespace(sm_count=10)))  # fmt: skip
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 30)
    # another skip may apply (no cut given): not refused at the start; 30 waves of 20 slots
    # are the CTAs the kernel may then simulate (KernelRun stops it past them with ``past``)
    assert wave_budget.check_before_start(run, False, None) == 600
    with pytest.raises(GpusimError, match="kernel k would simulate about 231 waves"):
        raise wave_budget.past(run, 601)


def test_a_grid_under_the_budget_runs_as_before(monkeypatch):
    # 31 waves with a budget of 31: no refusal, and the same answer as with no budget at all.
    w = Workload(batch=8, heads=32, seq_len_q=2048, seq_len_k=2048, head_dim=64, dtype="fp32")
    s = Schedule(block_m=64, block_n=64, warps=8, stages=2)
    p = load_profile("h200-sxm")
    free = simulate("flash2", w, s, p, detail="aggregated")
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 31)
    assert simulate("flash2", w, s, p, detail="aggregated").runtime_s == free.runtime_s
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 10)
    with pytest.raises(GpusimError, match="limit of 10;"):
        simulate("flash2", w, s, p, detail="aggregated")


def test_under_a_trace_no_skip_runs_so_the_whole_grid_counts_and_nothing_is_written(
    monkeypatch, tmp_path
):
    w = Workload(batch=8, heads=32, seq_len_q=2048, seq_len_k=2048, head_dim=64, dtype="fp32")
    s = Schedule(block_m=64, block_n=64, warps=8, stages=2)
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 20)  # the grid: 31 waves
    trace = tmp_path / "trace.json"
    with pytest.raises(GpusimError, match="under a trace or on the detailed path, where no"):
        simulate("flash2", w, s, load_profile("h200-sxm"), detail="aggregated", trace_path=trace)
    assert not trace.exists()
