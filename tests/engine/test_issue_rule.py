"""The engine's step rule (MMA phase, then softmax phase) against the recorded H200 loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.engine.rates import rates_for

DATA = Path(__file__).parents[2] / "data/h200/2026-11-30_calibration_issue/issue-h200.json"
FLOP_PER_HMMA = 4096
ELEMS_PER_ROUND = 32  # accumulator values per thread, one MUFU.EX2 each


def _measured(row) -> float:
    """Elapsed SM cycles per iteration (see the folder's README: 4 x the recorded field)."""
    warps_per_sm = row["threads"] // 32 * row["ctas_per_sm"]
    return warps_per_sm / row["raw"]["per_clk_per_sm"]["median"]


def _engine(rates, row) -> float:
    """Cycles per iteration of the engine's rule for one SM's warps of that loop."""
    warps = row["threads"] // 32 * row["ctas_per_sm"]
    work = rates.work(row["nmma"] * FLOP_PER_HMMA * warps, 0, 0, 0)
    work["sfu"] = row["rounds"] * ELEMS_PER_ROUND * 32 * warps
    work["issue"] = rates.issue(0, row["rounds"] * ELEMS_PER_ROUND * 4 * warps)
    # ticks to SM cycles: the issue lane runs 4 per cycle
    return rates.step_ticks(work) * rates.pipe_per_tick["issue"] / 4


# At 4 warps per scheduler the H200 overlaps the phases a little (0.90 x the sum): +14 %.
@pytest.mark.parametrize(("wps", "tol"), [(2, 0.12), (4, 0.15)])
def test_engine_rule_reproduces_the_mma_softmax_loop(h200, wps, tol):
    rates = rates_for(h200, "fp16")
    rows = json.loads(DATA.read_text())["rows"]
    combined = [r for r in rows if r["nmma"] and r["rounds"] and r["warps_per_scheduler"] == wps]
    assert len(combined) == 8
    for r in combined:
        assert _engine(rates, r) == pytest.approx(_measured(r), rel=tol), r["raw"]["time_s"]


def test_the_old_max_rule_would_miss_it(h200):
    rates = rates_for(h200, "fp16")
    rows = json.loads(DATA.read_text())["rows"]
    r = next(
        r
        for r in rows
        if (r["nmma"], r["rounds"], r["threads"], r["ctas_per_sm"]) == (64, 1, 128, 2)
    )
    per_warp = _measured(r) / r["warps_per_scheduler"]
    tensor = 64 * FLOP_PER_HMMA / (rates.pipe_per_s["tensor"] / rates.clock_hz / 4)
    assert per_warp > 1.4 * max(tensor, ELEMS_PER_ROUND * 8)
