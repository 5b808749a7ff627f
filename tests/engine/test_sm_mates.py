"""SM-mates sharing an SM by age rank: even shares keep lockstep, priority drifts them apart."""

from __future__ import annotations

import numpy as np
import pytest

from gpusim.engine.sm_mates import generation_spreads, run


def test_even_shares_keep_lockstep_and_fixed_lives():
    p = run(np.ones(4 * 2 * 6), sms=4, per_sm=2, priority=1.0)
    assert np.allclose(p.end - p.start, 1.0)
    assert np.allclose(generation_spreads(p.start, p.end, 8), 0.0)


def test_priority_converges_to_even_spacing():
    # two per SM: the offset grows geometrically toward half a life, never past it
    sp = generation_spreads(*_ends(run(np.ones(4 * 2 * 40), 4, 2, 0.9)), 8)
    assert np.all(np.diff(sp) >= -1e-9)
    assert 0.45 < sp[-1] <= 0.5 + 1e-9
    # three per SM: a third of a life apart, so the 10th-90th spread nears two thirds
    sp3 = generation_spreads(*_ends(run(np.ones(4 * 3 * 40), 4, 3, 0.9)), 12)
    assert 0.6 < sp3[-1] <= 2 / 3 + 1e-6


def test_first_generation_offset():
    # the older mate runs at 2/(1+q) and ends at (1+q)/2, the younger has then done q and
    # ends (1-q)(1+q)/2 later: its replacement starts that much after the older's
    q = 0.95
    p = run(np.ones(2 * 2 * 2), 2, 2, q)
    starts = np.sort(p.start[4:])
    assert starts[0] == pytest.approx((1 + q) / 2)
    assert starts[-1] - starts[0] == pytest.approx((1 - q * q) / 2)


def test_progress_is_piecewise_linear_and_ends_with_the_work():
    works = np.array([3.0, 1.0, 2.0, 2.0])
    p = run(works, 1, 2, 0.8)
    for i, w in enumerate(works):
        t = p.time_at(i, np.array([0.0, w]))
        assert t[0] == pytest.approx(p.start[i]) and t[1] == pytest.approx(p.end[i])
    # even shares: each CTA lives exactly its work
    even = run(works, 1, 2, 1.0)
    assert np.allclose(even.end - even.start, works)


def test_bad_arguments():
    with pytest.raises(ValueError):
        run(np.ones(4), 0, 1)
    with pytest.raises(ValueError):
        run(np.ones(4), 1, 2, priority=1.5)


def _ends(p):
    return p.start, p.end
