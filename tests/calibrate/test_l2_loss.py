"""The L2's loss curve from recorded l2_survive runs (gpusim/calibrate/l2_loss.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate import l2_loss

RUNS = Path(__file__).resolve().parents[2] / "data/h200/2026-11-30_calibration_l2_survive"
MIB = 1 << 20


def _pair(kernel: str, p_mib: int, extra_bytes: int, w_mib: int = 2) -> list[dict]:
    other = l2_loss.SURVIVE_KERNELS.get(kernel, "hot_bytes")
    base = {"kernel": kernel, "w_mib": w_mib, "p_mib": p_mib, "shared_bytes": w_mib * MIB,
            other: p_mib * MIB}  # fmt: skip
    return [
        {**base, "again": 0, "metrics": {"dram__bytes_read.sum": 1000.0}},
        {**base, "again": 1, "metrics": {"dram__bytes_read.sum": 1000.0 + extra_bytes}},
    ]


def test_a_pair_gives_the_share_lost_at_the_other_traffic_plus_half_the_set():
    pts = l2_loss.loss_points(_pair("l2_survive", 30, MIB))
    assert pts == [(31 * MIB, 0.5)]
    assert l2_loss.loss_points(_pair("l2_survive_w", 30, 2 * MIB)) == [(31 * MIB, 1.0)]


def test_shared_traffic_and_wide_sets_give_no_point():
    assert l2_loss.loss_points(_pair("l2_survive_h", 30, MIB)) == []
    assert l2_loss.loss_points(_pair("l2_survive", 30, MIB, w_mib=8)) == []


def test_the_curve_never_falls_and_stays_in_zero_to_one():
    records = (
        _pair("l2_survive", 10, -20_000)  # a count's scatter below zero
        + _pair("l2_survive", 20, 300_000)
        + _pair("l2_survive_w", 20, 100_000)
        + _pair("l2_survive", 30, 100_000)  # below the point before it: pooled with it
        + _pair("l2_survive", 40, 2 * MIB + 50_000)
    )
    curve = l2_loss.loss_curve([records])
    shares = [s for _d, s in curve]
    assert shares == sorted(shares)
    assert all(0.0 <= s <= 1.0 for s in shares)
    assert shares[0] == 0.0 and shares[-1] == 1.0


def test_isotonic_pools_adjacent_violators_by_weight():
    assert l2_loss.isotonic([0.0, 0.4, 0.2, 1.0], [1, 1, 1, 1]) == pytest.approx(
        [0.0, 0.3, 0.3, 1.0]
    )
    assert l2_loss.isotonic([0.6, 0.0], [3, 1]) == pytest.approx([0.45, 0.45])


def test_lost_share_interpolates_from_zero_and_is_whole_past_the_curve():
    curve = [(10.0, 0.2), (20.0, 0.6)]
    assert l2_loss.lost_share(curve, 5.0) == pytest.approx(0.1)
    assert l2_loss.lost_share(curve, 15.0) == pytest.approx(0.4)
    assert l2_loss.lost_share(curve, 25.0) == 1.0


def test_the_h200_runs_lose_half_of_a_shared_set_by_35_mib_and_all_by_43():
    """The README's figures ("half by 35 MiB, all by 43"), at the precision it quotes them."""
    runs = [json.loads((RUNS / f"l2-survive-{k}-h200.json").read_text())["records"]
            for k in ("fine", "writes", "hot")]  # fmt: skip
    curve = l2_loss.loss_curve(runs)
    half = next(d for d, s in curve if s >= 0.5)
    assert 34.5 * MIB <= half <= 35.5 * MIB
    assert l2_loss.lost_share(curve, 20 * MIB) < 0.01
    assert l2_loss.lost_share(curve, 42 * MIB) < 0.99 < l2_loss.lost_share(curve, 43 * MIB)
