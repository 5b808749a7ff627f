"""Tiles of several batch-heads read by one CTA (gpusim.engine.head_keys): each its own in the
L2, named by the tensor's batch-head."""

import pytest

import gpusim
from gpusim.engine.head_keys import head_keys
from gpusim.schedule import Schedule
from gpusim.workload import Workload

BWD = Schedule(block_m=128, block_n=128, warps=8, stages=2)


def _group_sum(w: Workload):
    r = gpusim.simulate("flash2", w, BWD, "h100-sxm5")
    return next(k for k in r.kernels if k.name == "flash2_bwd_group_sum").counters


def test_a_group_sum_larger_than_the_l2_reads_every_head_from_dram():
    # dK and dV of 40 query heads in groups of 4: 85 MB, beyond the H100's 50 MB L2
    w = Workload(batch=13, heads=40, heads_kv=10, seq_len=640, head_dim=64, dtype="bf16",
                 pass_="bwd")  # fmt: skip
    c = _group_sum(w)
    assert c.global_read_bytes == pytest.approx(2 * 13 * 40 * 640 * 64 * 2)
    assert c.dram_read_bytes == pytest.approx(c.global_read_bytes, rel=0.01)
    with head_keys(False):  # before: one tile for the group's 4 heads, 3 of 4 reads hit
        assert _group_sum(w).dram_read_bytes == pytest.approx(c.global_read_bytes / 4, rel=0.01)


def test_a_group_sum_that_fits_meets_the_tiles_the_backward_just_wrote():
    w = Workload(batch=1, heads=40, heads_kv=10, seq_len=640, head_dim=64, dtype="bf16",
                 pass_="bwd")  # fmt: skip
    c = _group_sum(w)
    assert c.dram_read_bytes < 0.05 * c.global_read_bytes
