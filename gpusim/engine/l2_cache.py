"""The L2 as an LRU of tiles: which tiles of which tensor are still resident when re-read.

Granularity is the tile the algorithm moves (``Access.key``: tensor, batch-head,
first row, first column), or a run of them when the engine coarsens steps or
lumps CTAs (see :mod:`gpusim.engine.plan`). Reuse is seen between accesses of
the same key only: a kernel that reads rows of a tile another kernel wrote
whole does not hit on it (a limit of tile granularity, stated in the README).

Write policy: write-allocate, write-back. A write makes the tile resident and
dirty; DRAM write bytes are charged when a tile *becomes* dirty (the one
write-back its residency will cost), so rewriting a still-resident dirty tile
costs no more DRAM traffic, and a tile evicted and written again costs again.
Charging at dirtying rather than at eviction keeps the count independent of
when the run stops and puts the DRAM bandwidth inside the kernel that caused it.

With a loss curve (a profile's measured ``l2_loss_by_depth``) the L2 has no hard edge: a
tile's *depth* is the bytes brought into the L2 (misses and newly written bytes) since it
was last touched, and a re-read loses the curve's share of it at that depth, as the H200's
L2 loses a set that every SM reads (data/h200/2026-11-30_calibration_l2_survive). Such a
partial miss holds the tile for DRAM with the chance that any of its lines (the profile's
``l2_line_bytes``) was lost (lines lost independently, each with the curve's share), and a
tile deeper than the curve's last point is gone.

Fills take time: a line fetched from DRAM is *ready* one DRAM latency after
the miss, and a read that hits a line still being filled waits until then
(a hit under miss, as the L2's miss-status registers merge requests to one
line). So CTAs that ask for the same tile at the same time all wait for DRAM,
not just the first one, as on the hardware.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence

from gpusim.curves import share_at


class L2Cache:
    """LRU over tile keys, by capacity or by a loss curve; entries remember size and dirt."""

    __slots__ = ("_lines", "capacity_bytes", "curve", "inserted", "line_bytes", "resident_bytes")

    def __init__(
        self,
        capacity_bytes: int,
        curve: Sequence[tuple[float, float]] = (),
        line_bytes: int | None = None,
    ):
        """``line_bytes`` (the unit a loss curve loses or keeps) is needed with a curve only."""
        if curve and not line_bytes:
            raise ValueError("an L2 with a loss curve needs its line size (line_bytes)")
        self.capacity_bytes = capacity_bytes
        self.resident_bytes = 0
        self.curve = list(curve)
        self.line_bytes = line_bytes or 0
        self.inserted = 0  # bytes brought into the L2 so far: the clock of depths
        # key -> [size, dirty bytes, tick at which the data is in the L2, ``inserted`` when
        # last touched]
        self._lines: OrderedDict[Hashable, list[int]] = OrderedDict()

    def _evict(self) -> None:
        lines = self._lines
        if self.curve:
            deepest = self.curve[-1][0]
            while lines:
                line = next(iter(lines.values()))
                if self.inserted - line[3] <= deepest:
                    return
                lines.popitem(last=False)
                self.resident_bytes -= line[0]
            return
        while self.resident_bytes > self.capacity_bytes and lines:
            _, line = lines.popitem(last=False)
            self.resident_bytes -= line[0]

    def read(
        self, key: Hashable, nbytes: int, now: int = 0, fill_ticks: int = 0
    ) -> tuple[int, int]:
        """Read ``nbytes`` of tile ``key`` at ``now``: (bytes that miss, tick the data is in L2).

        A miss starts a fill that is ready ``fill_ticks`` later; a hit returns the
        fill's ready tick (``now`` or earlier once the line is complete).
        """
        if nbytes <= 0:
            return 0, now
        line = self._lines.get(key)
        if line is None:
            self.inserted += nbytes
            self._lines[key] = [nbytes, 0, now + fill_ticks, self.inserted]
            self.resident_bytes += nbytes
            self._evict()
            return nbytes, now + fill_ticks
        self._lines.move_to_end(key)
        grow = max(0, nbytes - line[0])
        lost = wait = 0
        if self.curve:
            # Past the curve's last point every set measured was lost whole.
            share = share_at(self.curve, self.inserted - line[3], past_end=1.0)
            kept = min(line[0], nbytes)
            lost = round(kept * share)
            if lost:
                p_any = 1.0 - (1.0 - share) ** max(1, kept // self.line_bytes)
                wait = round(fill_ticks * p_any)
        miss = grow + lost
        if grow:
            wait = fill_ticks
            line[0] = nbytes
            self.resident_bytes += grow
        if miss:
            line[2] = max(line[2], now + wait)
            self.inserted += miss
        line[3] = self.inserted
        if grow:
            self._evict()
        return miss, line[2]

    def write(self, key: Hashable, nbytes: int, now: int = 0) -> int:
        """Write ``nbytes`` of tile ``key``; returns the bytes newly made dirty (DRAM writes)."""
        if nbytes <= 0:
            return 0
        line = self._lines.get(key)
        if line is None:
            self.inserted += nbytes
            self._lines[key] = [nbytes, nbytes, now, self.inserted]
            self.resident_bytes += nbytes
            self._evict()
            return nbytes
        self._lines.move_to_end(key)
        grow = max(0, nbytes - line[0])
        self.inserted += grow
        line[3] = self.inserted
        newly_dirty = max(0, nbytes - line[1])
        line[0] += grow
        line[1] = max(line[1], nbytes)
        if grow:
            self.resident_bytes += grow
            self._evict()
        return newly_dirty

    def __len__(self) -> int:
        return len(self._lines)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._lines
