"""Figure 4's data: every algorithm placed under its profile's roofs."""

from __future__ import annotations

import pytest

from algorithms import ALGORITHMS
from gpusim.profiles import load_profile
from gpusim.reporting.fig_roofline import roofs

from .helpers import simulate_json


def test_every_algorithm_is_placed_under_the_roof(small):
    fig, results = small["Roofline"]
    data = fig.build(results)
    assert {r["algorithm"] for r in data.rows} == set(ALGORITHMS)
    for r in data.rows:
        # Runtime can beat neither the DRAM bandwidth nor the tensor peak.
        assert r["achieved_flop_per_s"] <= r["roof_flop_per_s"] * (1 + 1e-9), r["algorithm"]
        assert r["dram_intensity_flop_per_byte"] == pytest.approx(r["flops"] / r["dram_bytes"])
        assert r["dram_bytes"] > 0 and r["global_bytes"] > 0


def test_roofs_come_from_the_profile():
    p = load_profile("a100-sxm4-80gb")
    rf = roofs("a100-sxm4-80gb", "fp16")
    assert rf["dram_bytes_per_s"] == p.dram_bandwidth_bytes_per_s.value
    expected = p.mma_sync_flops_per_clk_per_sm.fp16.value * p.sm_clock_hz.value * p.sm_count.value
    assert rf["peak_flop_per_s"] == pytest.approx(expected)


def test_row_matches_gpusim_simulate(small, capsys):
    fig, results = small["Roofline"]
    data = fig.build(results)
    row = next(r for r in data.rows if r["algorithm"] == "softmax-online")
    point = next(p for p in fig.points() if p.algorithm == "softmax-online")
    sim = simulate_json(point, capsys)
    assert row["runtime_s"] == sim["runtime_s"]
    assert row["flops"] == sim["flops"]
    assert row["achieved_flop_per_s"] == pytest.approx(sim["tflops"] * 1e12)
