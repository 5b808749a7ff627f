"""The sass_timing record and what the profile takes from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.sass_timing import profile_entry

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_sass_timing/sass-timing-h200.json"
)


def _row(doc, op, warps):
    return next(r for r in doc["rows"] if r["op"] == op and r["warps"] == warps)


def test_profile_entry_takes_chains_as_latencies_and_streams_per_scheduler():
    doc = json.loads(RECORD.read_text())
    v = profile_entry(doc)["value"]
    assert v["hmma_pipe"] == pytest.approx(_row(doc, "hmma_tp", 8)["cycles_per_instr"] / 2, 1e-3)
    link = _row(doc, "iadd_chain", 4)["cycles_per_instr"]
    assert v["ldsm_latency"] == pytest.approx(
        _row(doc, "ldsm_chain", 4)["cycles_per_instr"] - link, 1e-3
    )
    assert 20 < v["ldsm_latency"] < 40 and 5 < v["hmma_pipe"] < 7


def test_two_warps_on_a_scheduler_share_it_round_robin():
    """Oldest-first issue would finish one warp of each pair in about half the time of the
    other; the record's warps w and w + 4 (one scheduler) end within a few percent."""
    doc = json.loads(RECORD.read_text())
    for op in ("fmul_tp", "fmnmx_tp", "lop3_tp"):
        for cycles in _row(doc, op, 8)["per_warp_cycles"]:
            for w in range(4):
                a, b = cycles[w], cycles[w + 4]
                assert abs(a - b) / max(a, b) < 0.05, (op, cycles)


def test_the_ldmatrix_stream_runs_at_the_shared_memorys_bandwidth():
    doc = json.loads(RECORD.read_text())
    per_sm = 8 * 512 / _row(doc, "ldsm_tp", 8)["cycles_per_instr"]  # bytes per cycle per SM
    assert 120 < per_sm < 132
