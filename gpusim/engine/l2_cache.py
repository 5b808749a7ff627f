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

Fills take time: a line fetched from DRAM is *ready* one DRAM latency after
the miss, and a read that hits a line still being filled waits until then
(a hit under miss, as the L2's miss-status registers merge requests to one
line). So CTAs that ask for the same tile at the same time all wait for DRAM,
not just the first one, as on the hardware.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable


class L2Cache:
    """Byte-capacity LRU over tile keys; entries remember their size and dirty bytes."""

    __slots__ = ("_lines", "capacity_bytes", "resident_bytes")

    def __init__(self, capacity_bytes: int):
        self.capacity_bytes = capacity_bytes
        self.resident_bytes = 0
        # key -> [size, dirty bytes, tick at which the data is in the L2]
        self._lines: OrderedDict[Hashable, list[int]] = OrderedDict()

    def _evict(self) -> None:
        lines = self._lines
        while self.resident_bytes > self.capacity_bytes and lines:
            _, (size, _dirty, _ready) = lines.popitem(last=False)
            self.resident_bytes -= size

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
            self._lines[key] = [nbytes, 0, now + fill_ticks]
            self.resident_bytes += nbytes
            self._evict()
            return nbytes, now + fill_ticks
        self._lines.move_to_end(key)
        miss = max(0, nbytes - line[0])
        if miss:
            line[0] = nbytes
            line[2] = max(line[2], now + fill_ticks)
            self.resident_bytes += miss
            self._evict()
        return miss, line[2]

    def write(self, key: Hashable, nbytes: int, now: int = 0) -> int:
        """Write ``nbytes`` of tile ``key``; returns the bytes newly made dirty (DRAM writes)."""
        if nbytes <= 0:
            return 0
        line = self._lines.get(key)
        if line is None:
            self._lines[key] = [nbytes, nbytes, now]
            self.resident_bytes += nbytes
            self._evict()
            return nbytes
        self._lines.move_to_end(key)
        grow = max(0, nbytes - line[0])
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
