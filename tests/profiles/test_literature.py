"""The A100 profile: every number cites a document, and the derived ones (a cited figure
times the clock) are what gpusim/profiles/literature.py recomputes."""

from __future__ import annotations

import pytest

from gpusim.profiles import load_profile
from gpusim.profiles.gaps import borrowed_fields
from gpusim.profiles.literature import (
    A100_L2_BYTES_PER_CLK,
    A100_SM_CLOCK_HZ,
    LUO_A100_DRAM_CYCLES,
    LUO_A100_L2_CYCLES,
    a100_derived,
)
from tests.profiles.test_shipped import _sourced

NAME = "a100-sxm4-80gb"
#: A source names one of these documents (NVIDIA's, or a published measurement).
CITED = (
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper",
    "NVIDIA A100 Tensor Core GPU datasheet",
    "NVIDIA CUDA C++ Programming Guide",
    "NVIDIA CUDA Occupancy Calculator",
    "NVIDIA Nsight Compute Kernel Profiling Guide",
    "arXiv 2402.13499",
    "NVIDIA Developer Forums",
)
NOT_A_CITATION = ("assumed", "same as", "h200", "not measured", "h100")


def test_every_number_cites_a_document_and_none_is_another_gpus():
    p = load_profile(NAME)
    fields = list(_sourced(p))
    assert len(fields) >= 30
    for field, q in fields:
        src = q.source
        assert any(doc in src for doc in CITED), f"{field}: {src}"
        assert not any(word in src.lower() for word in NOT_A_CITATION), f"{field}: {src}"
    assert borrowed_fields(p) == []


@pytest.mark.parametrize("field", sorted(a100_derived()))
def test_derived_values_are_the_cited_figures_times_the_clock(field):
    p = load_profile(NAME)
    assert getattr(p, field).value == pytest.approx(a100_derived()[field], rel=1e-12)


def test_the_arithmetic_and_the_sources_name_the_same_figures():
    p = load_profile(NAME)
    assert p.sm_clock_hz.value == A100_SM_CLOCK_HZ
    assert f"{LUO_A100_L2_CYCLES:g} SM cycles" in p.l2_latency_s.source
    assert f"{LUO_A100_DRAM_CYCLES:g} SM cycles" in p.dram_latency_s.source
    assert f"{A100_L2_BYTES_PER_CLK} bytes/clk" in p.l2_bandwidth_bytes_per_s.source
    # 261.5 cycles at 1.41 GHz is about 185 ns; 466 about 330 ns (the H200 measured 330 ns).
    assert p.l2_latency_s.value == pytest.approx(185.5e-9, rel=1e-3)
    assert p.dram_latency_s.value == pytest.approx(330.5e-9, rel=1e-3)
    # The achieved DRAM bandwidth is below the datasheet's 2,039 GB/s (88 % of it).
    assert p.dram_bandwidth_bytes_per_s.value / 2.039e12 == pytest.approx(0.883, abs=0.002)


def test_what_no_source_gives_is_left_out():
    p = load_profile(NAME)
    for field in ("barrier_base_cycles", "l2_fetch_bytes_per_byte_padded_row_copy",
                  "kernel_launch_overhead_s", "sm_clock_tensor_load_hz", "l2_loss_by_depth",
                  "step_efficiency_1_warp_per_scheduler", "dram_share_by_inflight"):  # fmt: skip
        assert getattr(p, field) is None, field
