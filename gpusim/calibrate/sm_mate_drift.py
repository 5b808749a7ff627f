"""The SM-mates' priority (:mod:`gpusim.engine.sm_mates`) fitted to kv_walk_mma's CTA stamps.

    python -m gpusim.calibrate.sm_mate_drift FILE     # the fit of each launch, and its table

kv_walk --drift (:mod:`gpusim.calibrate.kv_walk`, no attention kernel) launches CTAs that walk
shared 32-MiB buffers with tensor-core work between tiles, one, two or three to an SM, for 8
generations, and stamps every CTA's start and end. For each launch with two or more CTAs per
SM this finds the priority whose dispatch (:func:`gpusim.engine.sm_mates.run`, CTAs of equal
work) gives the same spread of each generation's starts (10th-90th percentile, in CTA lives)
as measured, by least squares over a grid of 0.0025. What it found on the H200: a priority
near 1 (lockstep kept) when a tile step is long (4-8 us) or DRAM-bound (0.9 us), 0.94-0.96
between (1.3-2.3 us), and lower at three per SM.

:func:`gpusim.engine.sm_mates.priority_at` reads the table (the profile's ``sm_mate_priority``,
:func:`profile_points`) at a kernel's step time (its CTA's time per K/V tile at
its occupancy) and CTAs per SM: linear in log step time between the two launches around it;
outside the measured range the nearest launch's, and it says it went outside. With no launch
at that many CTAs per SM it raises ValueError: the drift is unmeasured there.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.calibrate.profile_patch import set_after
from gpusim.engine.sm_mates import generation_spreads, run

#: the calibration record (kv_walk --drift on the H200)
RECORD = "data/h200/2026-12-04_calibration_kv_walk_drift/kv-walk-drift-h200.json"
GRID = np.round(np.arange(0.80, 1.0 + 1e-9, 0.0025), 4)
#: the profile field it writes, placed after this one
FIELD, AFTER = "sm_mate_priority", "cta_duration_scatter"
#: SMs in the fit's dispatch: all SMs alike (CTAs of equal work), so a few stand for all
FIT_SMS = 8


@dataclass(frozen=True)
class DriftPoint:
    """One launch's fit: CTAs per SM, its tile step (s, the CTA life over its tiles), the
    priority and the RMS of the spreads it leaves."""

    ctas_per_sm: int
    step_s: float
    priority: float
    rms: float
    work: int


def measured_spreads(r: dict[str, Any]) -> np.ndarray:
    """Each generation's start spread of one kv_walk launch, in CTA lives."""
    start = np.asarray(r["start_ns"], dtype=float)
    end = np.asarray(r["end_ns"], dtype=float)
    return generation_spreads(start, end, r["sm_count"] * r["ctas_per_sm"])


def fit_launch(r: dict[str, Any]) -> DriftPoint:
    """The priority that reproduces one launch's spreads."""
    c = r["ctas_per_sm"]
    meas = measured_spreads(r)
    g = meas.size
    best = (np.inf, 1.0)
    for q in GRID:
        p = run(np.ones(FIT_SMS * c * g), FIT_SMS, c, float(q))
        err = float(((generation_spreads(p.start, p.end, FIT_SMS * c) - meas) ** 2).sum())
        if err < best[0]:
            best = (err, float(q))
    life_s = float(np.median(np.asarray(r["end_ns"]) - np.asarray(r["start_ns"]))) / 1e9
    return DriftPoint(c, life_s / r["tiles"], best[1], (best[0] / g) ** 0.5, r["work"])


def calibration(doc: dict[str, Any]) -> tuple[DriftPoint, ...]:
    """Every launch of a kv_walk --drift record with two or more CTAs per SM, fitted."""
    if doc.get("kind") != "gpusim.kv_walk":
        raise ValueError("not a kv_walk record")
    return tuple(fit_launch(r) for r in doc["records"] if r["ctas_per_sm"] >= 2)


def profile_points(points: tuple[DriftPoint, ...]) -> tuple[tuple[int, float, float], ...]:
    """The fit as a profile's ``sm_mate_priority`` value, by CTAs per SM and step."""
    return tuple(
        (p.ctas_per_sm, p.step_s, p.priority)
        for p in sorted(points, key=lambda p: (p.ctas_per_sm, p.step_s))
    )


def table(points: tuple[DriftPoint, ...]) -> str:
    """The fit as a Markdown table."""
    lines = ["| CTAs/SM | mma rounds | tile step us | priority | RMS of spreads |",
             "|---|---|---|---|---|"]  # fmt: skip
    for p in sorted(points, key=lambda p: (p.ctas_per_sm, p.step_s)):
        lines.append(
            f"| {p.ctas_per_sm} | {p.work} | {p.step_s * 1e6:.2f} | {p.priority:.4f} "
            f"| {p.rms:.3f} |"
        )
    return "\n".join(lines)


def apply(profile_text: str, points: tuple[DriftPoint, ...], record_path: str) -> str:
    """``profile_text`` with ``sm_mate_priority`` set from the fit (after
    ``cta_duration_scatter``) and a header line naming the record."""
    entry = {
        "value": [list(p) for p in profile_points(points)],
        "source": f"measured, python -m gpusim.calibrate.sm_mate_drift ({record_path})",
        "note": "[CTAs per SM, tile step s, priority]: kv_walk --drift (kv_walk_mma, no "
        "attention kernel), each launch's 8 generations of start spreads fitted with SM-mates "
        f"sharing an SM by age rank; RMS {max(p.rms for p in points):.3f} of a life at worst",
    }
    return set_after(profile_text, AFTER, {FIELD: entry}, f"# SM-mate priority: {record_path}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("record", type=Path, nargs="?", default=Path(RECORD))
    ap.add_argument("--profile", type=Path, help="the profile YAML to set sm_mate_priority in")
    a = ap.parse_args(argv)
    try:
        points = calibration(json.loads(a.record.read_text()))
        if a.profile is not None:
            a.profile.write_text(apply(a.profile.read_text(), points, str(a.record)))
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {a.record}: {e}", file=sys.stderr)
        return 2
    print(table(points))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
