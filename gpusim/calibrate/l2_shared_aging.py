"""How much faster than read-once traffic does *shared* traffic age a line in the L2?

From one recorded ``python -m gpusim.calibrate.l2_bytes --hot`` run (kernels/l2_bytes.cu):
``l2_survive`` (a 2-MiB set every SM reads, P MiB that each CTA reads its own slice of
once, the set again) and ``l2_survive_h`` (the same, but every CTA reads the whole P set,
as the CTAs of a head read its K and V). Each pair of launches (with and without the second
pass) gives the share of the set lost at depth P + W/2; the depth where half is lost,
interpolated linearly between the two measured P around it, is read for both kernels of the
same run. Their ratio is how many read-once bytes one shared byte is worth: on the H200
(data/h200/2026-11-30_calibration_l2_survive) half is lost 35.4 MiB deep under read-once
traffic and 27.8 MiB deep under shared traffic, 1.28 times per byte. A line that SMs of
both L2 halves read is kept in both (that the halves keep what their SMs read is in that
folder's README); the profile's ``l2_loss_by_depth`` counts depth in read-once bytes.

A shared pass is used only while the P set alone still fits: once the launch without the
re-read reads more than :data:`FITS_SLACK` x (W + P) from DRAM, the P set is itself
thrashing and the difference of the two launches says nothing about the set W.
"""

from __future__ import annotations

import argparse
import json
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

from gpusim.calibrate.profile_patch import set_after

MIB = 1 << 20
FITS_SLACK = 1.05
KERNELS = {"l2_survive": "stream_bytes", "l2_survive_h": "hot_bytes"}
#: the profile field it writes, placed after this one
FIELD, AFTER = "l2_shared_aging", "cta_duration_scatter"


def _points(records: list[dict[str, Any]], kernel: str) -> list[tuple[float, float]]:
    """``(depth bytes, share lost)`` of ``kernel``'s valid pairs, by rising depth."""
    by = {(r["p_mib"], r["again"]): r for r in records if r.get("kernel") == kernel}
    out = []
    for (p_mib, again), r in sorted(by.items()):
        base = by.get((p_mib, 0))
        if not again or base is None:
            continue
        w = r["shared_bytes"]
        other = r[KERNELS[kernel]]
        base_read = base["metrics"]["dram__bytes_read.sum"]
        if base_read > FITS_SLACK * (w + other):
            continue
        lost = (r["metrics"]["dram__bytes_read.sum"] - base_read) / w
        out.append((other + w / 2, lost))
    return out


def half_loss_depth(points: list[tuple[float, float]]) -> float:
    """The depth where the share lost first reaches one half, linear between points."""
    for (d0, s0), (d1, s1) in pairwise(points):
        if s0 < 0.5 <= s1:
            return d0 + (0.5 - s0) * (d1 - d0) / (s1 - s0)
    raise ValueError("the loss never crosses one half between two measured depths")


def shared_aging(records: list[dict[str, Any]]) -> float:
    """Read-once bytes one byte of shared traffic is worth in the L2's depth (>= 1 expected)."""
    once = half_loss_depth(_points(records, "l2_survive"))
    shared = half_loss_depth(_points(records, "l2_survive_h"))
    return once / shared


def apply(profile_text: str, record: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with ``l2_shared_aging`` set from a recorded ``l2_bytes --hot`` run
    (after ``cta_duration_scatter``) and a header line naming the record."""
    recs = record["records"]
    once = half_loss_depth(_points(recs, "l2_survive"))
    shared = half_loss_depth(_points(recs, "l2_survive_h"))
    entry = {
        "value": once / shared,
        "source": f"measured, python -m gpusim.calibrate.l2_shared_aging ({record_path})",
        "note": f"half of a set lost {once / MIB:.1f} MiB deep under read-once traffic, "
        f"{shared / MIB:.1f} MiB under traffic every CTA reads (l2_survive, l2_survive_h)",
    }
    return set_after(profile_text, AFTER, {FIELD: entry}, f"# L2 shared aging: {record_path}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("record", type=Path, help="a recorded l2_bytes --hot run (JSON)")
    ap.add_argument("--profile", type=Path, help="the profile YAML to set l2_shared_aging in")
    a = ap.parse_args(argv)
    try:
        record = json.loads(a.record.read_text())
        if a.profile is None:
            print(f"{shared_aging(record['records']):.4f}")
            return 0
        a.profile.write_text(apply(a.profile.read_text(), record, str(a.record)))
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {FIELD} into {a.profile}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
