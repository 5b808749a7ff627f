"""mate_gap's reading of a cta_scatter record: on the H200's step loop the CTA launched first on
each SM ends first on all 132 SMs, about 2 % sooner; the products-only loop has no such order."""

from __future__ import annotations

import json

import pytest

from gpusim.calibrate.mate_gap import first_wave, table
from tests.validation.heldout_sets import ROOT

RECORD = ROOT / "data/h200/2026-11-30_calibration_cta_scatter/cta-scatter-h200.json"


def test_the_h200_step_loops_older_mates_end_first():
    doc = json.loads(RECORD.read_text())
    slots = doc["sm_count"] * doc["ctas_per_sm"]
    by = {(la["loop"], la["repeat"]): first_wave(la, slots) for la in doc["launches"]}
    step = by[("step_l2", 0)]
    assert step["sms"] == 132 and step["older_first"] == 132
    assert step["younger_us"] / step["older_us"] == pytest.approx(1.019, abs=0.003)
    products = by[("products", 0)]
    assert 30 < products["older_first"] < 100  # no order: about half
    assert "step_l2 | 0 | 132 | 132" in table(doc)
