"""How identical CTAs scatter (gpusim/calibrate/cta_scatter.py), on synthetic and recorded runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpusim.calibrate import cta_scatter

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_cta_scatter/cta-scatter-h200.json"
)


def _launches(sm_speed: np.ndarray, cta_std: float, repeats: int = 3) -> list[dict]:
    rng = np.random.default_rng(7)
    out = []
    for _ in range(repeats):
        smid = np.tile(np.arange(sm_speed.size), 8)
        dur = 100_000 / sm_speed[smid] * (1 + cta_std * rng.standard_normal(smid.size))
        out.append({"loop": "step_l2", "smid": smid.tolist(),
                    "start_ns": [0] * smid.size, "end_ns": dur.tolist()})  # fmt: skip
    return out


def test_lasting_sm_speeds_show_as_spread_and_repeat_correlation():
    speed = 1 + 0.03 * np.random.default_rng(1).standard_normal(132)
    (s,) = cta_scatter.summary({"launches": _launches(speed, 0.002)})
    assert s["sm_spread_std"] == pytest.approx(0.03, rel=0.25)
    assert min(s["repeat_correlation"]) > 0.9
    assert s["within_sm_std"] == pytest.approx(0.002, rel=0.3)
    assert s["speed_quartiles"] == sorted(s["speed_quartiles"])


def test_random_scatter_alone_does_not_repeat():
    (s,) = cta_scatter.summary({"launches": _launches(np.ones(132), 0.01)})
    assert s["within_sm_std"] == pytest.approx(0.01, rel=0.2)
    assert max(s["repeat_correlation"]) < 0.5


def test_the_profile_takes_the_step_loops_scatter_from_the_h200_run():
    record = json.loads(RECORD.read_text())
    entry = cta_scatter.profile_entry(record)
    assert entry["value"] == pytest.approx(0.0126, abs=5e-5)  # README: "scatter by 1.26 %"
    assert "cta_scatter" in entry["source"]


def test_a_record_without_the_step_loop_is_refused():
    with pytest.raises(ValueError, match="step_l2"):
        cta_scatter.profile_entry({"gpu": "g", "date": "d", "launches": []})
