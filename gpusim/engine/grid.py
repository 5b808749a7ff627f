"""The launch grid: which CTA comes next, and which class each CTA belongs to.

Grid order is batch-head-major, block-minor: CTA ``n`` is block ``n % B`` of
batch-head ``n // B`` (``B`` blocks per batch-head), as with ``blockIdx.x``
over the blocks and ``blockIdx.y`` over batch x heads in FlashAttention-2.
The hardware hands CTAs to SMs in this order as slots free up.
"""

from __future__ import annotations

from bisect import bisect_right


class Grid:
    """CTA indices ``0 .. total-1`` with their (batch-head, block) and class."""

    def __init__(self, blocks_per_bh: int, batch_heads: int, block_classes: list[int]):
        if len(block_classes) != blocks_per_bh:
            raise ValueError("one class per block is needed")
        self.blocks_per_bh = blocks_per_bh
        self.total = blocks_per_bh * batch_heads
        self._cls = block_classes
        # Blocks where the class changes: a few for most kernels, one per block for causal ones.
        self._run_starts = [0] + [
            b for b in range(1, blocks_per_bh) if block_classes[b] != block_classes[b - 1]
        ]

    def class_at(self, n: int) -> int:
        """Class index of CTA ``n``."""
        return self._cls[n % self.blocks_per_bh]

    def class_runs(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """Maximal runs ``(first, last + 1, class)`` of one class among CTAs ``[start, end)``."""
        out: list[list[int]] = []
        bpb, starts = self.blocks_per_bh, self._run_starts
        n = start
        while n < end:
            bh, b = divmod(n, bpb)
            i = bisect_right(starts, b) - 1
            run_end_block = starts[i + 1] if i + 1 < len(starts) else bpb
            stop = min(end, bh * bpb + run_end_block)
            cls = self._cls[b]
            if out and out[-1][2] == cls and out[-1][1] == n:
                out[-1][1] = stop
            else:
                out.append([n, stop, cls])
            n = stop
        return [(a, b, c) for a, b, c in out]

    def bh_runs(self, start: int, count: int) -> list[tuple[int, int, int]]:
        """CTAs ``[start, start + count)`` as ``(bh, first block, count)`` runs within one bh."""
        out = []
        n, end, bpb = start, start + count, self.blocks_per_bh
        while n < end:
            bh, b = divmod(n, bpb)
            take = min(end - n, bpb - b)
            out.append((bh, b, take))
            n += take
        return out
