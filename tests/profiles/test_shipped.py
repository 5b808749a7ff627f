"""The shipped profiles: consistent with themselves, their sources and the H200 measurements."""

from __future__ import annotations

import json

import pytest

from gpusim.data.layout import H200
from gpusim.profiles import list_profiles, load_profile, profile_path
from gpusim.profiles.schema import (
    HardwareProfile,
    Sourced,
    SourcedCurve,
    SourcedCycles,
    SourcedFraction,
    SourcedList,
    SourcedMatePriority,
    SourcedRateTable,
)
from gpusim.profiles.schema_export import schema_path, schema_text

MEASURED = H200 / "2026-11-30_microbench" / "h200_microbench.json"


def _sourced(p: HardwareProfile):
    for name in type(p).model_fields:
        value = getattr(p, name)
        if isinstance(
            value,
            Sourced
            | SourcedList
            | SourcedFraction
            | SourcedCurve
            | SourcedCycles
            | SourcedMatePriority
            | SourcedRateTable,
        ):
            yield name, value
        elif hasattr(type(value), "model_fields"):  # DtypeRates
            for sub in type(value).model_fields:
                inner = getattr(value, sub)
                if inner is not None:
                    yield f"{name}.{sub}", inner


@pytest.mark.parametrize("name", list_profiles())
def test_profile_is_named_after_its_file_and_cites_sources(name):
    p = load_profile(name)
    assert p.name == name == profile_path(name).stem
    fields = list(_sourced(p))
    assert len(fields) >= 25
    for field, value in fields:
        assert len(value.source) > 20, f"{name}: {field} needs a real source"


@pytest.mark.parametrize("name", list_profiles())
def test_occupancy_limits_agree(name):
    p = load_profile(name)
    assert p.smem_per_block_bytes.value + p.smem_reserved_per_block_bytes.value == (
        p.smem_per_sm_bytes.value
    )
    assert p.smem_carveout_steps_kib.value[-1] * 1024 == p.smem_per_sm_bytes.value
    assert p.max_threads_per_block.value <= p.max_threads_per_sm


# Datasheet dense tensor TFLOPS with FP32 accumulate, and FP32 TFLOPS, per mma.sync-class rates.
DATASHEET = {
    "a100-sxm4-80gb": {"mma_fp16_tflops": 312.0, "fp32_tflops": 19.5},
    "rtx-4090": {"mma_fp16_tflops": 165.2, "fp32_tflops": 82.6},
    "l40s": {"mma_fp16_tflops": 362.05, "fp32_tflops": 91.6},
    "h200-sxm-datasheet": {"wgmma_fp16_tflops": 989.4, "fp32_tflops": 66.9},
}


@pytest.mark.parametrize("name", sorted(DATASHEET))
def test_per_clock_rates_reproduce_datasheet_peaks(name):
    p = load_profile(name)
    per_clk = p.sm_count.value * p.sm_clock_hz.value / 1e12
    sheet = DATASHEET[name]
    assert per_clk * p.fp32_flops_per_clk_per_sm.value == pytest.approx(
        sheet["fp32_tflops"], rel=0.01
    )
    if "mma_fp16_tflops" in sheet:
        got = per_clk * p.mma_sync_flops_per_clk_per_sm.fp16.value
        assert got == pytest.approx(sheet["mma_fp16_tflops"], rel=0.015)
    else:
        # Hopper's datasheet tensor figures are quoted at 1.83 GHz, not the 1.98 GHz boost.
        got = p.sm_count.value * 1.83e9 * p.wgmma_flops_per_clk_per_sm.fp16.value / 1e12
        assert got == pytest.approx(sheet["wgmma_fp16_tflops"], rel=0.01)


def test_hopper_mma_sync_is_slower_than_wgmma():
    for name in ("h100-sxm5", "h200-sxm-datasheet"):
        p = load_profile(name)
        assert p.wgmma_flops_per_clk_per_sm is not None
        assert p.mma_sync_flops_per_clk_per_sm.fp16.value < p.wgmma_flops_per_clk_per_sm.fp16.value
    assert load_profile("a100-sxm4-80gb").wgmma_flops_per_clk_per_sm is None


def test_h200_matches_what_the_device_reported():
    measured = json.loads(MEASURED.read_text())
    attrs = measured["attributes"]
    p = load_profile("h200-sxm-datasheet")
    assert p.sm_count.value == attrs["multiProcessorCount"] == 132
    assert p.sm_clock_hz.value == attrs["clockRate"] * 1e3
    assert p.l2_bytes.value == attrs["l2CacheSize"] == 62_914_560
    assert p.smem_per_sm_bytes.value == attrs["sharedMemPerMultiprocessor"]
    assert p.smem_per_block_bytes.value == attrs["sharedMemPerBlockOptin"]
    assert p.smem_reserved_per_block_bytes.value == attrs["reservedSharedMemPerBlock"]
    assert p.registers_per_sm.value == attrs["regsPerMultiprocessor"]
    assert p.max_threads_per_sm == attrs["maxThreadsPerMultiProcessor"]
    assert p.max_blocks_per_sm.value == attrs["maxBlocksPerMultiProcessor"]
    assert p.dram_bytes.value == attrs["totalGlobalMem"]
    mma = measured["mma_sync_f16_f32acc_flops_per_clk_per_sm"]["median"]
    assert p.mma_sync_flops_per_clk_per_sm.fp16.value == pytest.approx(mma, rel=0.01)
    assert p.sfu_exp_per_clk_per_sm.value == pytest.approx(
        measured["mufu_ex2_per_clk_per_sm"]["median"], rel=0.02
    )
    assert "50 MB" in (p.l2_bytes.note or "")  # the public tables' disagreement is recorded


def test_schema_json_is_current():
    # Regenerate with: python -m gpusim.profiles.schema_export
    assert schema_path().read_text() == schema_text()
