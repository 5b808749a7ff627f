"""Integer simulated time: one tick is one picosecond; seconds appear only at the edges.

Integer ticks keep event ordering exact (no "negative delay" or "work left is
not zero" float residue); a picosecond is far below any latency the model
uses, so rounding a duration up to a whole tick changes nothing measurable.
"""

from __future__ import annotations

import math

#: Ticks per second of simulated time.
TICKS_PER_S = 10**12


def ticks(seconds: float) -> int:
    """``seconds`` as a whole number of ticks, rounded up (a delay never shrinks to zero)."""
    return max(0, math.ceil(seconds * TICKS_PER_S - 1e-6))


def seconds(t: int | float) -> float:
    """``t`` ticks in seconds."""
    return t / TICKS_PER_S


def per_tick(rate_per_s: float) -> float:
    """A rate per second (bytes/s, FLOP/s) as a rate per tick."""
    return rate_per_s / TICKS_PER_S
