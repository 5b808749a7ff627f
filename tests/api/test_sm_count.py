"""The API's ``sm_count=``: simulate, count and tune on fewer SMs of one profile."""

from __future__ import annotations

import pytest

import gpusim
from gpusim.errors import GpusimError

W = gpusim.Workload(batch=2, heads=16, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
S = gpusim.Schedule(block_m=128, block_n=64, warps=4, stages=2)


def test_a_compute_bound_grid_slows_with_the_sms_it_loses():
    full = gpusim.simulate("flash2", W, S, "h200-sxm-calibrated")
    part = gpusim.simulate("flash2", W, S, "h200-sxm-calibrated", sm_count=16)
    assert (full.sm_count, part.sm_count) == (132, 16)
    # 512 CTAs: 4 waves on 132 SMs (one CTA each at this tile), 32 on 16; the L2 and
    # HBM are the same, so the ratio sits near the waves' ratio, not at the SMs' 8.25.
    assert 5.0 < part.runtime_s / full.runtime_s < 9.0
    assert part.to_json_dict()["sm_count"] == 16
    assert part.dram_read_bytes <= full.dram_read_bytes * 1.05  # the same bytes, give or take L2


def test_count_and_tune_take_it_and_refuse_it_out_of_range():
    assert gpusim.count("flash2", W, S, sm_count=8).flops == gpusim.count("flash2", W, S).flops
    with pytest.raises(GpusimError, match=r"outside 1\.\.132"):
        gpusim.count("flash2", W, S, sm_count=200)
    with pytest.raises(GpusimError, match=r"outside 1\.\.132"):
        gpusim.simulate("flash2", W, S, sm_count=0)
    with pytest.raises(GpusimError, match=r"outside 1\.\.132"):
        gpusim.tune(W, sm_count=133)
