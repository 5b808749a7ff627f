"""Linear interpolation of measured share curves from the origin (gpusim/curves.py)."""

from __future__ import annotations

import pytest

from gpusim.curves import share_at

CURVE = [(10.0, 0.2), (20.0, 0.6)]


def test_between_the_origin_and_the_first_point_the_share_rises_linearly():
    assert share_at(CURVE, 0.0) == 0.0
    assert share_at(CURVE, 5.0) == pytest.approx(0.1)


def test_between_points_and_past_the_end():
    assert share_at(CURVE, 15.0) == pytest.approx(0.4)
    assert share_at(CURVE, 25.0) == 0.6
    assert share_at(CURVE, 25.0, past_end=1.0) == 1.0
