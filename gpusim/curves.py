"""Measured curves of shares: linear interpolation from the origin through ``[(x, share), ...]``.

Profiles carry such curves (``SourcedCurve``: the L2's loss by depth, the DRAM bandwidth's
share by bytes in flight); the calibration code and the engine read them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise


def share_at(
    points: Sequence[tuple[float, float]], x: float, past_end: float | None = None
) -> float:
    """The share at ``x``: linear between (0, 0) and the points, ``past_end`` beyond the last
    point (None: the last point's share)."""
    for (x0, y0), (x1, y1) in pairwise([(0.0, 0.0), *points]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    if past_end is not None:
        return past_end
    return points[-1][1] if points else 0.0
