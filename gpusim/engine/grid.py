"""The launch grid: which CTA comes next, and which class each CTA belongs to.

Grid order is batch-head-major, block-minor: CTA ``n`` is block ``n % B`` of
batch-head ``n // B`` (``B`` blocks per batch-head), as with ``blockIdx.x``
over the blocks and ``blockIdx.y`` over batch x heads in FlashAttention-2,
or block ``B - 1 - n % B`` for a kernel that counts its blocks down
(``last_first``: the CUDA kernels start the longest causal blocks first).
The hardware hands CTAs to SMs in this order as slots free up.

Each block has a class (its traced program) and a *timing class*: classes
whose programs differ only in the sizes of their own tiles (the ragged last
block) share one, and CTAs are grouped by timing class.
"""

from __future__ import annotations

from bisect import bisect_right

#: The timing class of lumped CTAs (no class's index).
LUMPED = -1


class _Runs:
    """Runs of equal values along the blocks of one batch-head."""

    def __init__(self, values: list[int]):
        self.values = values
        self.starts = [0] + [b for b in range(1, len(values)) if values[b] != values[b - 1]]

    def runs(
        self, start: int, end: int, bpb: int, merge: bool = True
    ) -> list[tuple[int, int, int]]:
        """Runs ``(first, last + 1, value)`` over CTAs ``[start, end)`` (merged across bh)."""
        out: list[list[int]] = []
        n = start
        while n < end:
            bh, b = divmod(n, bpb)
            i = bisect_right(self.starts, b) - 1
            run_end = self.starts[i + 1] if i + 1 < len(self.starts) else bpb
            stop = min(end, bh * bpb + run_end)
            v = self.values[b]
            if merge and out and out[-1][2] == v and out[-1][1] == n:
                out[-1][1] = stop
            else:
                out.append([n, stop, v])
            n = stop
        return [(a, b, c) for a, b, c in out]


class Grid:
    """CTA indices ``0 .. total-1`` with their (batch-head, block), class and timing class."""

    def __init__(
        self,
        blocks_per_bh: int,
        batch_heads: int,
        block_classes: list[int],
        timing_of_class: list[int] | None = None,
        last_first: bool = False,
    ):
        if len(block_classes) != blocks_per_bh:
            raise ValueError("one class per block is needed")
        self.blocks_per_bh = blocks_per_bh
        self.total = blocks_per_bh * batch_heads
        self.last_first = last_first
        timing = timing_of_class or list(range(max(block_classes, default=0) + 1))
        # Runs are kept in launch order: position p of a batch-head is block p, or B - 1 - p.
        order = block_classes[::-1] if last_first else block_classes
        self._cls = _Runs(order)
        self._timing = _Runs([timing[c] for c in order])
        #: whether some timing class holds more than one class
        self.mixed = len(set(timing)) < len(timing)
        #: CTAs ``[0, lump_end)`` have the timing class :data:`LUMPED`: any of them that one
        #: dispatch hands out together run as one lumped group (lumped.py)
        self.lump_end = 0
        self.lump_by_bh = True

    def lump(self, ctas: int, by_batch_head: bool = True) -> None:
        """Lump the first ``ctas`` CTAs (the rest keep their timing classes); with
        ``by_batch_head``, CTAs of different batch-heads are not lumped together."""
        self.lump_end = max(0, min(ctas, self.total))
        self.lump_by_bh = by_batch_head
        if self.lump_end:
            self.mixed = True  # groups hold CTAs of several classes

    def class_at(self, n: int) -> int:
        """Timing class of CTA ``n`` (:data:`LUMPED` or below for the lumped ones)."""
        if n < self.lump_end:
            return LUMPED - n // self.blocks_per_bh % 2 if self.lump_by_bh else LUMPED
        return self._timing.values[n % self.blocks_per_bh]

    def block_class(self, b: int) -> int:
        """Class (traced program) of block ``b`` of every batch-head."""
        return self._cls.values[self.blocks_per_bh - 1 - b if self.last_first else b]

    def _blocks(self, p: int, count: int) -> int:
        """The first block of the ``count`` launched from position ``p`` of a batch-head."""
        return self.blocks_per_bh - p - count if self.last_first else p

    def class_runs(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """Maximal runs ``(first, last + 1, timing class)`` among CTAs ``[start, end)``."""
        cut = min(max(start, self.lump_end), end)
        lumped = []
        n, bpb = start, self.blocks_per_bh
        while n < cut:  # lumped CTAs group within a batch-head: their lengths jump between
            stop = min(cut, (n // bpb + 1) * bpb) if self.lump_by_bh else cut
            lumped.append((n, stop, self.class_at(n)))
            n = stop
        return lumped + (self._timing.runs(cut, end, self.blocks_per_bh) if end > cut else [])

    def bh_runs(self, start: int, count: int) -> list[tuple[int, int, int, int]]:
        """CTAs ``[start, start + count)`` as ``(bh, first block, count, class)`` runs."""
        bpb = self.blocks_per_bh
        if not self.mixed:
            out = []
            n, end = start, start + count
            cls = self._cls.values[start % bpb]
            while n < end:
                bh, b = divmod(n, bpb)
                take = min(end - n, bpb - b)
                out.append((bh, self._blocks(b, take), take, cls))
                n += take
            return out
        return [
            (a // bpb, self._blocks(a % bpb, b - a), b - a, c)
            for a, b, c in self._cls.runs(start, start + count, bpb, merge=False)
        ]
