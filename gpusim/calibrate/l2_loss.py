"""How much of a shared set the L2 loses with depth: the profile's ``l2_loss_by_depth``.

From recorded ``python -m gpusim.calibrate.l2_bytes`` runs (kernels/l2_bytes.cu,
``l2_survive`` and ``l2_survive_w``): a set of W MiB that every SM reads, then P MiB of
other traffic (read once, or written), then the set again. The DRAM reads of the launch
that re-reads minus those of the one that does not, over W, is the share the L2 lost. A line
of the set lies P + W/2 deep on average (the other traffic plus the part of the set read
after it), so each pair of launches gives one point (depth, share lost); sets above
:data:`MAX_SET_MIB` spread their lines over too wide a range of depths and give none.

Written and read-once traffic are pooled: on the H200 a written MiB aged the set as much as
a read one (data/h200/2026-11-30_calibration_l2_survive). Points at one depth are
averaged (as measured, negative differences too), the curve is made non-decreasing by
pooling adjacent violators (isotonic regression) and clipped to [0, 1]: run-to-run scatter
must not make the L2 keep more of a set the deeper it lies. ``l2_survive_h`` (other traffic
every SM reads) is not pooled: it ages a set faster per byte (about 1.25 times), and the
engine's depth counts bytes alike; its run's read-once reference pairs are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpusim.curves import share_at

MIB = 1 << 20
#: the kernels whose pairs give points, and the key of their other traffic's bytes
SURVIVE_KERNELS = {"l2_survive": "stream_bytes", "l2_survive_w": "written_bytes"}
MAX_SET_MIB = 2


def loss_points(records: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """``(depth bytes, share lost)`` of every re-read pair in ``records`` (one run); the
    share as measured, so a little below 0 or above 1 where the counts scatter."""
    launches: dict[tuple, dict[str, Any]] = {}
    for r in records:
        if r.get("kernel") in SURVIVE_KERNELS and r["w_mib"] <= MAX_SET_MIB:
            launches[(r["kernel"], r["w_mib"], r["p_mib"], r["again"])] = r
    out = []
    for (kernel, w_mib, p_mib, again), r in sorted(launches.items()):
        base = launches.get((kernel, w_mib, p_mib, 0))
        if not again or base is None:
            continue
        extra = r["metrics"]["dram__bytes_read.sum"] - base["metrics"]["dram__bytes_read.sum"]
        depth = r[SURVIVE_KERNELS[kernel]] + r["shared_bytes"] / 2
        # Not clipped: a difference of two DRAM counts scatters both ways around the truth,
        # and clipping the negative ones first would bias every mean upward.
        out.append((float(depth), extra / r["shared_bytes"]))
    return out


def isotonic(values: list[float], weights: list[float]) -> list[float]:
    """The non-decreasing sequence nearest ``values`` in weighted least squares (PAVA)."""
    blocks: list[list[float]] = []  # [mean, weight, count]
    for v, w in zip(values, weights, strict=True):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return [mean for mean, _w, n in blocks for _ in range(int(n))]


def loss_curve(runs: list[list[dict[str, Any]]]) -> list[tuple[float, float]]:
    """The pooled, non-decreasing curve ``[(depth bytes, share lost), ...]`` of ``runs``."""
    by_depth: dict[float, list[float]] = {}
    for records in runs:
        for depth, lost in loss_points(records):
            by_depth.setdefault(round(depth / MIB, 3), []).append(lost)
    if len(by_depth) < 2:
        raise ValueError("fewer than two depths with an l2_survive pair of a set <= 2 MiB")
    depths = sorted(by_depth)
    means = [sum(by_depth[d]) / len(by_depth[d]) for d in depths]
    fitted = isotonic(means, [float(len(by_depth[d])) for d in depths])
    return [(d * MIB, round(min(1.0, max(0.0, v)), 4)) for d, v in zip(depths, fitted, strict=True)]


def lost_share(curve: Sequence[tuple[float, float]], depth_bytes: float) -> float:
    """The share of a set lost ``depth_bytes`` deep: ``curve`` interpolated from (0, 0),
    all of it past the curve's last point (every set measured that deep was lost whole)."""
    return share_at(curve, depth_bytes, past_end=1.0)


def profile_entry(runs: list[dict[str, Any]], paths: list[str]) -> dict[str, Any]:
    """The ``l2_loss_by_depth`` entry from recorded runs (their JSON documents) and paths."""
    curve = loss_curve([r["records"] for r in runs])
    half = next((d for d, v in curve if v >= 0.5), None)
    return {
        "value": [[round(d), v] for d, v in curve],
        "source": "measured, python -m gpusim.calibrate.l2_bytes (--fine, --writes): "
        + ", ".join(paths),
        "note": (
            "share of a 2-MiB set every SM reads that the L2 lost, by depth in bytes (other "
            "traffic since, read once or written, plus half the set); points at one depth "
            f"averaged, made non-decreasing; half lost by {half / MIB:.0f} MiB"
            if half
            else "share of a set every SM reads that the L2 lost, by depth in bytes"
        ),
    }
