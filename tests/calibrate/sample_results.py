"""A synthetic results document shaped like what ``gpusim calibrate`` records (for CPU tests)."""

from __future__ import annotations

from typing import Any

from gpusim.calibrate.profile_writer import CLOCK_SOURCES, FIELDS, TENSOR_CLOCK_SOURCES

SOURCE = "measured on Test GPU, 2026-01-01, gpusim calibrate {bench}"

NUMBERS = {
    "sm_count": 132,
    "smem_per_sm_bytes": 233472,
    "smem_per_block_bytes": 232448,
    "smem_reserved_per_block_bytes": 1024,
    "registers_per_sm": 65536,
    "max_warps_per_sm": 64,
    "max_threads_per_block": 1024,
    "max_blocks_per_sm": 32,
    "l2_bytes": 62914560,
    "dram_bytes": 150109880320,
    "lds128_bytes_per_clk_per_sm": 127.4,
    "read_bandwidth_bytes_per_s": 7.3e12,
    "l2_latency_s": 1.5e-7,
    "copy_bandwidth_bytes_per_s": 4.2e12,
    "dram_latency_s": 3.4e-7,
    "mma_sync_fp16_flops_per_clk_per_sm": 2660.0,
    "mma_sync_bf16_flops_per_clk_per_sm": 2659.0,
    "mma_sync_tf32_flops_per_clk_per_sm": 1330.0,
    "ffma_flops_per_clk_per_sm": 243.0,
    "ex2_per_clk_per_sm": 15.9,
    "event_single_launch_s": 4.0e-6,
    "queued_second_launch_s": 1.8e-6,
    "mma_fp16_sm_clock_hz": 1.786e9,
    "fp32_sm_clock_hz": 1.96e9,
    "ex2_sm_clock_hz": 1.97e9,
    "smem_sm_clock_hz": 1.97e9,
    "sm_clock_reported_hz": 1.98e9,
}


def sample_results(failed: tuple[str, ...] = (), scale: float = 1.0) -> dict[str, Any]:
    """Every benchmark the profile writer reads, with made-up values; ``failed`` ones failed."""
    benches: dict[str, Any] = {}
    keys = [(f.bench, f.key) for f in FIELDS] + list(CLOCK_SOURCES) + list(TENSOR_CLOCK_SOURCES)
    for bench, key in keys:
        rec = benches.setdefault(
            bench, {"status": "ok", "source": SOURCE.format(bench=bench), "values": {}}
        )
        v = NUMBERS[key] * (scale if isinstance(NUMBERS[key], float) else 1)
        rec["values"][key] = {
            "value": v,
            "unit": "x",
            "min": v * 0.99,
            "median": v,
            "max": v * 1.01,
            "count": 9,
            "method": f"synthetic {key}",
            "source": rec["source"],
        }
    for bench in failed:
        benches[bench] = {"status": "failed", "error": "RuntimeError: boom", "source": "x"}
    return {
        "format": "gpusim-calibration-results",
        "format_version": 1,
        "provenance": {
            "gpu_name": "Test GPU",
            "date_utc": "2026-01-01T00:00:00+00:00",
            "git_commit": "abc",
            "driver_version": "1.0",
        },
        "benchmarks": benches,
    }
