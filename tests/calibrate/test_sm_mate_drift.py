"""The SM-mates' priority fitted to kv_walk --drift's stamps."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusim.calibrate.sm_mate_drift import (
    RECORD,
    DriftPoint,
    calibration,
    fit_launch,
    profile_points,
)
from gpusim.engine.sm_mates import priority_at, run
from gpusim.reporting.long_context_dram import ROOT


def _launch(c: int, q: float, gens: int = 8, sms: int = 6) -> dict:
    """A kv_walk-like record made by the dispatch itself, stamps in ns."""
    p = run(np.ones(sms * c * gens), sms, c, q)
    return {"ctas_per_sm": c, "sm_count": sms, "tiles": 1000, "work": 1,
            "start_ns": (p.start * 1e6).tolist(), "end_ns": (p.end * 1e6).tolist()}  # fmt: skip


@pytest.mark.parametrize("c,q", [(2, 0.95), (3, 0.9), (2, 1.0)])
def test_fit_recovers_the_priority_that_made_the_stamps(c, q):
    pt = fit_launch(_launch(c, q))
    assert pt.priority == pytest.approx(q, abs=0.003)
    assert pt.step_s == pytest.approx(1e-3 / 1000, rel=0.01)


def test_h200_record_fits_every_launch_closely():
    points = calibration(json.loads((ROOT / RECORD).read_text()))
    assert {p.ctas_per_sm for p in points} == {2, 3}
    # the age-rank model reproduces each launch's 8 generations of spreads
    assert max(p.rms for p in points) < 0.02
    # two per SM: drift fastest at 1.3-2.3 us steps, nearly none at 4-8 us
    by_step = {round(p.step_s * 1e6, 1): p.priority for p in points if p.ctas_per_sm == 2}
    assert min(by_step.values()) < 0.96 and max(by_step.values()) > 0.99


def test_priority_at_the_fit_interpolates_and_flags_outside():
    fit = (DriftPoint(2, 1e-6, 0.9, 0, 1), DriftPoint(2, 4e-6, 1.0, 0, 1))
    pts = profile_points(fit)
    q, outside = priority_at(pts, 2, 2e-6)
    assert q == pytest.approx(0.95) and not outside
    assert priority_at(pts, 2, 8e-6) == (1.0, True)
    assert priority_at(pts, 1, 2e-6) == (1.0, False)
    with pytest.raises(ValueError, match="not measured at 3"):
        priority_at(pts, 3, 2e-6)
