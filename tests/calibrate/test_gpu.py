"""The benchmarks on a real GPU, in quick mode (small sizes, few repeats).

Skipped without CuPy or a GPU. Checks that every benchmark runs, returns positive
values with sources, and that the profile written from them is valid; it makes
no claim about speed.
"""

from __future__ import annotations

import math

import pytest

from gpusim.calibrate import calibrate_command as command
from gpusim.calibrate.suite import BENCHMARKS
from gpusim.profiles.loader import load_profile


def _gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _gpu_available(), reason="needs CuPy and an NVIDIA GPU"),
]


def test_quick_calibration_runs_every_benchmark(tmp_path):
    out = tmp_path / "quick.yaml"
    doc = command.calibrate(out=out, results_path=tmp_path / "quick.json", quick=True)
    assert doc["failed"] == {}
    benches = {key.split(".")[0] for key in doc["measured"]}
    assert benches == set(BENCHMARKS)
    for key, val in doc["measured"].items():
        if isinstance(val["value"], list):  # a curve of shares
            assert all(0 <= share <= 1 for _x, share in val["value"]), key
        elif key == "smem_fill.smem_fill_cost_per_byte":  # a share that may be 0
            assert 0 <= val["value"] <= 1, key
        else:
            assert val["value"] > 0 and math.isfinite(val["value"]), key
        if "low" in val and not isinstance(val["value"], list):
            assert val["low"] <= val["value"] <= val["high"], key
    assert doc["missing"] == [] and doc["kept_measured_elsewhere"] == []
    profile = load_profile(out)
    assert profile.sm_count.value == doc["measured"]["device.sm_count"]["value"]
    assert profile.dram_bandwidth_bytes_per_s.source.startswith("measured on ")
    fp16 = doc["measured"]["tensor.mma_sync_fp16_flops_per_clk_per_sm"]["value"]
    bf16 = doc["measured"]["tensor.mma_sync_bf16_flops_per_clk_per_sm"]["value"]
    assert 0.5 < fp16 / bf16 < 2.0  # the same pipe; a large gap means a broken benchmark
