"""What a wave of near-empty CTAs costs (gpusim/calibrate/cta_launch.py), on the recorded run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate import cta_launch

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_cta_launch/cta-launch-h200.json"
)


def test_the_slope_over_waves_is_the_cost_of_one_more_wave():
    rows = [{"ctas_per_sm": 4, "waves": w, "median_s": 10e-6 + w * 0.3e-6} for w in (1, 4, 16)]
    assert cta_launch.per_wave_s({"rows": rows})[4] == pytest.approx(0.3e-6)


def test_on_the_h200_a_wave_costs_about_190_ns_or_80_ns_per_cta():
    b = cta_launch.per_wave_s(json.loads(RECORD.read_text()))
    assert 150e-9 < b[1] < 250e-9 and 150e-9 < b[2] < 250e-9
    for c in (4, 8, 16):
        assert 60e-9 < b[c] / c < 100e-9
