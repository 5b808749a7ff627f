"""Every field the engine reads is in each shipped profile with a source, or the engine
says in one line that the profile lacks it (no silent fallback to another GPU's number)."""

from __future__ import annotations

import pytest

from gpusim.engine.prepare import l2_fetch_factor
from gpusim.engine.rates import rates_for
from gpusim.profiles import list_profiles, load_profile
from gpusim.profiles.gaps import (
    ENGINE_OPTIONAL,
    borrowed_fields,
    gaps_line,
    missing_fields,
)
from gpusim.profiles.schema import HardwareProfile

#: Optional fields the engine does not read by default: the SM core model's cycles (a
#: refinement a profile opts into) and the wgmma rate (refused with an error until measured).
# Read only by their own paths, which refuse a profile without them in one line (SASS replay;
# the wgmma class: rates, clock and overlap shares, gpusim.engine.rates.rates_for; the K/V
# trace's aging and SM-mates, gpusim.engine.kv_trace_l2.kv_trace_of_record; the fragment
# stores' rate, gpusim.engine.rates.check_class_rates).
NOT_READ = {
    # the tile stream's law, read only with its mechanism on (off since held-out set 26) and
    # where present; each kernel's result says which model timed its fills (``dram_fill``)
    "tile_stream_latency_s",
    "tile_stream_ingress_bytes_per_s",
    "tile_stream_knee_power",
    "fragment_store_bytes_per_clk_per_sm",
    "l2_shared_aging",
    "sm_mate_priority",
    # read where present, for mma.sync forward steps; each kernel's result says which ratio it
    # ran with and why a measured one did not apply (``mate_first_wave_ratio``, ``mate_note``)
    "sm_mate_first_wave_ratio",
    # read where present, for pipe-model steps of CTAs with the table's warps (engine/cta_grouping)
    "step_efficiency_by_cta_warps",
    "sass_core_cycles",
    "wgmma_flops_per_clk_per_sm",
    "wgmma_rate_by_n",
    "sm_clock_wgmma_load_hz",
    "sm_clock_wgmma_burst_hz",
    "wgmma_softmax_overlap_same_warpgroup",
    "wgmma_softmax_overlap_other_warpgroup",
    "wgmma_softmax_overlap_two_warpgroups",
    "wgmma_softmax_cycles_per_instr_2_warpgroups",
    "wgmma_softmax_cycles_per_instr_3_warpgroups",
    "wgmma_softmax_cycles_per_instr_1_warpgroups",
    # written only from a wgmma_step record with rows off its SHAPES; read by the wgmma
    # class's ping-pong bound alone (gpusim.engine.wgmma_rates.pingpong_cpi)
    "wgmma_softmax_cycles_per_instr_by_block_n",
    # the same of one warpgroup at wgmma_step_one's tiles (decode set 4)
    "wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile",
}


def _optional_fields() -> set[str]:
    return {n for n, f in HardwareProfile.model_fields.items() if not f.is_required()}


def test_every_optional_field_the_engine_reads_is_listed_with_its_default():
    optional = _optional_fields() - {"note"}
    assert set(ENGINE_OPTIONAL) == optional - NOT_READ
    assert all(len(effect) > 10 for effect in ENGINE_OPTIONAL.values())


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
@pytest.mark.parametrize("name", list_profiles())
def test_each_engine_field_is_sourced_or_named_missing(name, dtype):
    p = load_profile(name)
    line = gaps_line(p, dtype)
    assert line is None or "\n" not in line
    for field in ENGINE_OPTIONAL:
        q = getattr(p, field)
        if q is not None:
            assert len(q.source) > 20, f"{name}: {field}"
        elif field in missing_fields(p, dtype):
            assert line is not None and field in line, f"{name}: {field}"


def test_the_line_names_only_what_the_run_reads():
    a100 = load_profile("a100-sxm4-80gb")
    fp16, fp32 = missing_fields(a100, "fp16"), missing_fields(a100, "fp32")
    assert "sm_clock_tensor_load_hz" in fp16 and "sm_clock_tensor_load_hz" not in fp32
    assert "simt_mma_flops_per_clk_per_sm" in fp32
    assert "simt_mma_flops_per_clk_per_sm" not in fp16
    # The measured default lacks only the L2's atomic rate (no run has measured it yet),
    # which only a run that adds atomically reads.
    assert gaps_line(load_profile("h200-sxm"), "fp16", atomic_adds=False) is None
    # Only runs of several kernels read the queued launch, which the A100's profile lacks.
    assert "kernel_queued_launch_s" not in missing_fields(a100, "fp16", kernels=1)
    assert "kernel_queued_launch_s" in missing_fields(a100, "fp16", kernels=2)


def test_borrowed_values_are_counted_and_the_a100_has_none():
    assert borrowed_fields(load_profile("a100-sxm4-80gb")) == []
    l40s = load_profile("l40s")
    assert "barrier_base_cycles" in borrowed_fields(l40s)
    assert "another GPU's" in gaps_line(l40s, "fp16")
    # The derived H100 keeps the H200's SM numbers, each marked as not measured there.
    assert "smem_bandwidth_bytes_per_clk_per_sm" in borrowed_fields(load_profile("h100-sxm5"))


def test_without_the_measured_fields_the_engine_runs_its_stated_defaults():
    a100 = load_profile("a100-sxm4-80gb")
    r = rates_for(a100, "fp16", warps=4)
    assert r.barrier_cycles == 0.0 and r.barrier_ticks == 0 and r.launch_ticks == 0

    class PaddedCopies:
        def copies_into_padded_rows(self) -> bool:
            return True

    assert l2_fetch_factor(a100, PaddedCopies()) == 1.0
    h200 = load_profile("h200-sxm")
    measured = h200.l2_fetch_bytes_per_byte_padded_row_copy.value
    assert l2_fetch_factor(h200, PaddedCopies()) == measured
    assert rates_for(h200, "fp16", warps=4).barrier_cycles == pytest.approx(8.0 + 2.0 * 4)


def test_the_atomic_rate_is_named_only_for_runs_that_add_atomically():
    p = load_profile("h200-sxm")
    assert "l2_atomic_add_bytes_per_s" in missing_fields(p)
    assert "l2_atomic_add_bytes_per_s" in missing_fields(p, "bf16", 3, atomic_adds=True)
    assert "l2_atomic_add_bytes_per_s" not in missing_fields(p, "bf16", 1, atomic_adds=False)
    line = gaps_line(p, "bf16", 3, atomic_adds=True)
    assert "l2_atomic_add_bytes_per_s" in line and "plain writes" in line
    assert gaps_line(p, "bf16", 1, atomic_adds=False) is None
