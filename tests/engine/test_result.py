"""What a simulated run reports about the resources it used (gpusim/engine/result.py)."""

from __future__ import annotations

import pytest

import gpusim
from gpusim.engine.dram_mix import dram_mix
from gpusim.profiles.loader import load_profile

# A decode that streams its K/V cache once: 64 x 32 heads x 8192 keys of bf16 d128 (8.6 GB),
# DRAM-bound on every profile.
DECODE = gpusim.Workload(batch=64, heads=32, seq_len_q=1, seq_len_k=8192, head_dim=128)
TILES = gpusim.Schedule(block_m=64, block_n=64, warps=4, stages=2)


@pytest.mark.parametrize("profile", ["h200-sxm", "h100-sxm5"])
def test_a_dram_bound_read_stream_uses_at_most_the_whole_dram(profile):
    # The profiles' bandwidth is a copy's; a read stream reaches more (dram_read_bandwidth).
    # Reported over the copy's bandwidth alone this run was at 1.07 (h200-sxm) and 1.08
    # (h100-sxm5); over each byte's lane cost it is at most 1.
    hw = load_profile(profile)
    assert hw.dram_read_bandwidth_bytes_per_s.value > hw.dram_bandwidth_bytes_per_s.value
    r = gpusim.simulate("flash2", DECODE, TILES, hw)
    (kernel,) = r.kernels
    assert r.bound == "dram" and kernel.bound == "dram"
    assert 0.9 < kernel.utilisation["dram"] <= 1.0
    c = kernel.counters
    read_cost, write_cost = dram_mix(hw)
    lane_s = (c.dram_read_bytes * read_cost + c.dram_write_bytes * write_cost) / (
        hw.dram_bandwidth_bytes_per_s.value
    )
    assert kernel.utilisation["dram"] == pytest.approx(lane_s / kernel.duration_s)
    # bytes over the copy's bandwidth exceed 1: the figure this replaced
    copy_s = (c.dram_read_bytes + c.dram_write_bytes) / hw.dram_bandwidth_bytes_per_s.value
    assert copy_s / kernel.duration_s > 1.0
