"""A load's latency under the memory system's queue (gpusim/engine/load_latency.py)."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.engine.load_latency import latency_under_queue
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _run(w: Workload, s: Schedule, on: bool):
    with latency_under_queue(on):
        return simulate("flash2", w, s, load_profile("h200-sxm"), detail="full")


def test_a_dram_bound_wave_keeps_dram_busy():
    """256 CTAs of a split decode in one wave, DRAM-bound: latency then transfer idles the
    DRAM lane a latency every step (about 291 us); under the queue the run moves its 1.07 GB
    at about the read stream's rate (about 249 us; the H200 took 257 us)."""
    w = Workload(batch=8, heads=16, seq_len_q=1, seq_len_k=16384, head_dim=128, dtype="bf16",
                 causal=True)  # fmt: skip
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2, kv_splits=2)
    before, after = _run(w, s, False), _run(w, s, True)
    assert before.runtime_s / after.runtime_s == pytest.approx(1.17, abs=0.02)
    split = after.kernels[0]
    rate = split.counters.dram_read_bytes / split.duration_s
    assert 0.90 < rate / load_profile("h200-sxm").dram_read_bandwidth_bytes_per_s.value < 1.0


def test_a_lone_ctas_load_is_its_latency():
    """One CTA on the GPU: its tiles move at the whole bandwidth in a few nanoseconds, so a
    load takes its latency either way (within 1 %)."""
    w = Workload(batch=1, heads=1, seq_len_q=64, seq_len_k=8192, head_dim=128, dtype="bf16")
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    before, after = _run(w, s, False), _run(w, s, True)
    assert after.runtime_s <= before.runtime_s
    assert after.runtime_s == pytest.approx(before.runtime_s, rel=0.01)
