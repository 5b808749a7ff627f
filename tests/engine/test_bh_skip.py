"""Batch-head extrapolation of causal kernels: exact work, bounded time, untouched elsewhere."""

from __future__ import annotations

from collections import OrderedDict

from gpusim.engine import simulate
from gpusim.engine.bh_skip import BhMarks, shift_l2
from gpusim.engine.counters import Counters
from gpusim.engine.l2_cache import L2Cache
from gpusim.schedule import Schedule
from gpusim.workload import Workload
from tests.engine.conftest import small_gpu

WORK = ("ctas", "mma_flops", "fp32_ops", "exp_ops", "smem_traffic_bytes", "barriers")


def _causal(h200, causal=True, batch=4, heads=16):
    gpu = small_gpu(h200, 4)
    w = Workload(batch=batch, heads=heads, seq_len_q=1024, seq_len_k=1024, head_dim=64,
                 causal=causal)  # fmt: skip
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    return [
        simulate("flash2", w, s, gpu, detail="aggregated", extrapolate=e) for e in (False, True)
    ]


def test_causal_extrapolation_keeps_work_and_l2_bytes_exact_and_time_close(h200):
    plain, fast = _causal(h200)
    assert fast.events < plain.events / 2  # it did skip batch-heads
    for f in (*WORK, "global_read_bytes", "global_write_bytes"):
        assert getattr(fast.counters, f) == getattr(plain.counters, f), f
    assert abs(fast.runtime_s / plain.runtime_s - 1) < 0.02
    assert abs(fast.dram_read_bytes / plain.dram_read_bytes - 1) < 0.02


def test_non_causal_kernels_are_not_extrapolated(h200):
    plain, fast = _causal(h200, causal=False)
    assert fast.to_json_dict() | {"sim_wall_s": 0, "events_per_s": 0} == plain.to_json_dict() | {
        "sim_wall_s": 0,
        "events_per_s": 0,
    }


def test_a_grid_too_short_for_two_windows_and_the_tail_is_simulated_whole(h200):
    plain, fast = _causal(h200, batch=1, heads=2)
    assert fast.runtime_s == plain.runtime_s
    assert fast.events == plain.events


def test_the_jump_waits_for_two_windows_that_agree():
    marks = BhMarks(blocks_per_bh=4, slots=4)  # window 2 bh (8 CTAs), reserve 3 bh
    c = Counters()
    total = 400
    ticks = [n * 10 for n in range(0, 40)]
    ticks[20] += 7  # one late dispatch: the windows around it disagree
    got = []
    for n, t in enumerate(ticks):
        c.dram_read_bytes = n * 3
        c.global_read_bytes = n * 4
        got.append(marks.jump(n, total, t, c))
    first = next(i for i, g in enumerate(got) if g[0])
    assert first >= 4 + 16  # past the first wave and two windows
    assert not any(g[0] for g in got[first + 1 :])  # one jump only
    m, per_bh, dram_r, dram_w = got[first]
    assert m == (total - first) // 4 - 3
    assert per_bh == 40.0 and dram_r == 0.75 and dram_w == 0.0


def test_shift_l2_renames_batch_heads_and_keeps_lru_order_and_bytes():
    l2 = L2Cache(1000)
    l2.read(("K", 0, 0, 0), 100)
    l2.write(("O", 1, 64, 0, 2), 50)
    l2.read(("V", 1, 0, 0), 30)
    before = l2.resident_bytes
    shift_l2(l2, 5)
    assert list(l2._lines) == [("K", 5, 0, 0), ("O", 6, 64, 0, 2), ("V", 6, 0, 0)]
    assert isinstance(l2._lines, OrderedDict)
    assert l2.resident_bytes == before
    assert l2.write(("O", 6, 64, 0, 2), 50) == 0  # still dirty under its new name
