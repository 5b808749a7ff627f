"""The shared-traffic aging of the L2: half-loss depths of read-once and shared other
traffic, from synthetic records and from the H200's recorded --hot run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.l2_shared_aging import MIB, half_loss_depth, shared_aging

HOT_RUN = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_l2_survive/l2-survive-hot-h200.json"
)


def _pair(kernel: str, p_mib: int, lost: float, base_extra: float = 0.0) -> list[dict]:
    """Two launches of a 2-MiB set behind P MiB of other traffic: without and with the
    re-read, the second reading ``lost`` of the set again from DRAM."""
    key = "stream_bytes" if kernel == "l2_survive" else "hot_bytes"
    w, p = 2 * MIB, p_mib * MIB
    base = w + p + base_extra
    return [
        {"kernel": kernel, "w_mib": 2, "p_mib": p_mib, "again": a, "shared_bytes": w, key: p,
         "metrics": {"dram__bytes_read.sum": base + a * lost * w}}
        for a in (0, 1)
    ]  # fmt: skip


def test_half_loss_depth_interpolates():
    assert half_loss_depth([(10.0, 0.0), (20.0, 0.25), (30.0, 0.75)]) == pytest.approx(25.0)
    with pytest.raises(ValueError, match="half"):
        half_loss_depth([(10.0, 0.0), (20.0, 0.4)])


def test_shared_traffic_worth_ratio_of_half_depths():
    # read once: half lost at P = 33 MiB (depth 34); shared: at P = 16 (depth 17): 2 x
    recs = _pair("l2_survive", 32, 0.0) + _pair("l2_survive", 34, 1.0)
    recs += _pair("l2_survive_h", 15, 0.0) + _pair("l2_survive_h", 17, 1.0)
    assert shared_aging(recs) == pytest.approx(34 / 17)


def test_a_shared_set_that_no_longer_fits_is_left_out():
    # the P = 17 pair of the shared kernel reads far more than W + P without the re-read:
    # its difference means nothing, so the half-loss lies between 15 and 19
    recs = _pair("l2_survive", 32, 0.0) + _pair("l2_survive", 34, 1.0)
    recs += _pair("l2_survive_h", 15, 0.0) + _pair("l2_survive_h", 17, 1.0, 80 * MIB)
    recs += _pair("l2_survive_h", 19, 1.0)
    assert shared_aging(recs) == pytest.approx(34 / 18)


def test_h200_recorded_run():
    # data/h200/2026-11-30_calibration_l2_survive: half lost 35.4 MiB deep under read-once
    # traffic, 27.7 MiB under shared traffic (its README: "about 1.25 times per byte")
    records = json.loads(HOT_RUN.read_text())["records"]
    assert shared_aging(records) == pytest.approx(1.279, abs=0.002)
