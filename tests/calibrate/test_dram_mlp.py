"""DRAM bandwidth against bytes in flight (gpusim/calibrate/dram_mlp.py): the profile's curve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate import dram_mlp

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_dram_mlp/dram-mlp-h200.json"
)


def _row(x: int, bw: float, copy: bool = True) -> dict:
    return {"copy": copy, "read_bytes_in_flight_per_sm": x, "bandwidth_bytes_per_s": bw}


def test_the_curve_is_each_amounts_mean_share_of_the_best_never_falling():
    rows = [_row(2048, 1.0), _row(4096, 2.0), _row(4096, 2.4), _row(8192, 3.9),
            _row(16384, 3.8), _row(2048, 9.0, copy=False)]  # fmt: skip
    curve = dram_mlp.share_curve({"rows": rows})
    xs = [x for x, _s in curve]
    shares = [s for _x, s in curve]
    assert xs == [2048, 4096, 8192, 16384]
    assert shares == sorted(shares) and shares[-1] == 1.0
    assert shares[1] == pytest.approx(2.2 / 3.85, abs=1e-3)  # 3.9 and 3.8 pooled


def test_the_h200_copy_needs_about_24_kib_in_flight_per_sm_for_its_bandwidth():
    entry = dram_mlp.profile_entry(json.loads(RECORD.read_text()))
    curve = dict((int(x), s) for x, s in entry["value"])
    assert curve[2048] < 0.4
    assert 0.75 < curve[12288] < 0.95
    assert curve[24576] > 0.97
