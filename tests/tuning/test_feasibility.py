"""Feasibility: every rejection names the resource and gives the numbers."""

import re

from gpusim.schedule import Schedule
from gpusim.tuning.feasibility import check
from gpusim.tuning.sram import with_sram_bytes
from gpusim.workload import Workload

W = Workload(batch=1, heads=4, seq_len_q=512, seq_len_k=512, head_dim=128, dtype="bf16")


def test_small_tile_fits(h200):
    v = check("flash2", W, Schedule(block_m=64, block_n=32, warps=4, stages=2), h200)
    assert v.fits and v.footprint.smem_bytes_per_cta == (64 + 2 * 2 * 32) * 128 * 2


def test_shared_memory_rejection_gives_need_and_limit(h200):
    s = Schedule(block_m=128, block_n=128, warps=8, stages=3)
    v = check("flash2", W, s, with_sram_bytes(h200, 64 * 1024))
    assert not v.fits
    need, avail = map(int, re.findall(r"(\d+) B", v.reason))
    assert v.reason.startswith("shared memory")
    assert need == v.footprint.smem_bytes_per_cta == (128 + 2 * 3 * 128) * 128 * 2
    assert avail == 64 * 1024


def test_register_cap_rejection(h200):
    # 128 x (128 + 128) fp32 accumulators over 128 threads: 256 + overhead, past 255.
    v = check("flash2", W, Schedule(block_m=128, block_n=128, warps=4, stages=1), h200)
    assert not v.fits and v.reason.startswith("registers") and "255" in v.reason


def test_algorithm_rejection_is_a_reason_not_an_exception(h200):
    # A schedule the algorithm cannot run is refused by the algorithm's own check.
    v = check("flash-naive-qkv", W, Schedule(block_m=64, block_n=64), h200)
    assert not v.fits and v.footprint is None and "block-m must be 1" in v.reason


def test_occupancy_limits_are_reasons(h200):
    # A profile whose SM holds only 128 threads: 8 warps cannot be placed.
    tiny = h200.model_copy(
        update={
            "max_threads_per_block": h200.max_threads_per_block.model_copy(update={"value": 128})
        }
    )
    v = check("flash2", W, Schedule(block_m=128, block_n=32, warps=8, stages=1), tiny)
    assert not v.fits and v.reason.startswith("occupancy") and "128" in v.reason


def test_fitting_schedule_reports_ctas_per_sm(h200):
    v = check("flash2", W, Schedule(block_m=64, block_n=32, warps=4, stages=1), h200)
    assert v.fits and v.ctas_per_sm >= 2  # 32 KiB of 228 KiB


def test_more_sram_never_rejects_a_schedule_that_fit(h200):
    from gpusim.tuning.space import search_space

    small, big = with_sram_bytes(h200, 64 * 1024), with_sram_bytes(h200, 160 * 1024)
    for s in search_space("flash2", W).schedules:
        if check("flash2", W, s, small).fits:
            assert check("flash2", W, s, big).fits
