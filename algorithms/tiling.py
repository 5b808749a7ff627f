"""Tile geometry shared by every algorithm: which (Q block, K/V block) tiles exist and need a mask.

With causal masking (bottom-right aligned, see :class:`gpusim.workload.Workload`),
the keys a row sees are a prefix of the keys, so the K/V tiles a Q block visits
are a prefix ``0 .. visible_kv_blocks - 1`` of the K/V tiles, and the Q blocks
that visit a K/V tile are a suffix of the Q blocks. Tiles past that prefix are
skipped (never loaded, computed or written); only the tiles that cross the
diagonal or run past the last key need :meth:`TileMachine.mask`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import pairwise

from algorithms.base import ceil_div
from gpusim.workload import Workload


def visible_kv_blocks(w: Workload, q0: int, br: int, bc: int) -> int:
    """How many K/V tiles a Q block starting at ``q0`` must visit (causal skipping)."""
    last_row = min(q0 + br, w.seq_len_q) - 1
    last_key = w.seq_len_k - 1 if not w.causal else min(w.seq_len_k - 1, last_row + w.causal_offset)
    return 0 if last_key < 0 else last_key // bc + 1


def needs_mask(w: Workload, q0: int, k0: int, bc: int) -> bool:
    """Whether tile (q0, k0) has any key past the end or above the diagonal."""
    if k0 + bc > w.seq_len_k:
        return True
    return w.causal and k0 + bc - 1 > q0 + w.causal_offset


def first_masked_tile(w: Workload, q0: int, bc: int, n: int) -> int:
    """The first of the ``n`` visited K/V tiles of Q block ``q0`` that needs a mask (``n`` if none).

    Masking is monotone along a Q block: once a tile crosses the diagonal the
    later ones do too, and the ragged tile is the last one.
    """
    first = n
    if w.seq_len_k % bc:
        first = w.seq_len_k // bc
    if w.causal:
        # Tile j crosses the diagonal iff j·bc + bc - 1 > q0 + offset.
        first = min(first, max(0, ceil_div(q0 + w.causal_offset - bc + 2, bc)))
    return min(first, n)


def q_blocks(w: Workload, br: int) -> int:
    """``Tr = ceil(Nq / Br)``."""
    return ceil_div(w.seq_len_q, br)


def kv_blocks(w: Workload, bc: int) -> int:
    """``Tc = ceil(Nk / Bc)``."""
    return ceil_div(w.seq_len_k, bc)


def visits_per_q_block(w: Workload, br: int, bc: int) -> list[int]:
    """``visible_kv_blocks`` of every Q block, in order (non-decreasing)."""
    return [visible_kv_blocks(w, i * br, br, bc) for i in range(q_blocks(w, br))]


def q_blocks_visiting(visits: list[int], j: int) -> range:
    """The Q blocks that visit K/V tile ``j`` (a suffix, since ``visits`` is non-decreasing)."""
    first = next((i for i, n in enumerate(visits) if n > j), len(visits))
    return range(first, len(visits))


def first_q_block(w: Workload, br: int, k0: int) -> int:
    """The first query block that sees key ``k0`` (the query blocks that see a K/V block
    are a suffix: under a causal mask those whose last row reaches it)."""
    if not w.causal:
        return 0
    # The last row of block i, min((i+1)·Br, Nq) - 1, sees keys up to row + offset.
    return max(0, ceil_div(k0 - w.causal_offset + 1, br) - 1)


def visible_tiles(w: Workload, br: int, bc: int) -> int:
    """Number of (Q block, K/V block) tiles computed per (batch, head)."""
    return sum(visits_per_q_block(w, br, bc))


def kv_tile_runs(w: Workload, visits: list[int], j: int, br: int, bc: int) -> list[range]:
    """The Q blocks that visit K/V tile ``j``, cut where the K/V-outer step changes: where
    the tile stops needing a mask, where ``j`` is the block's last visit, where the block
    runs past the queries. Each is an interval of the visiting suffix, so the cuts are
    found by bisection: O(log Tr) a K/V tile where asking every block is O(Tr) (minutes
    instead of seconds at a million tokens). The runs are the maximal runs of visiting
    blocks alike in (mask, last visit, ragged)."""
    tr = len(visits)
    lo, k0 = bisect_right(visits, j), j * bc
    if lo == tr:
        return []  # no Q block reaches this tile
    # a lower Q block sits nearer the diagonal: the masked blocks come first; both are false
    # then true along the blocks, so bisect finds where they turn
    blocks = range(lo, tr)
    unmasked = lo + bisect_left(blocks, True, key=lambda i: not needs_mask(w, i * br, k0, bc))
    ragged = lo + bisect_left(blocks, True, key=lambda i: i * br + br > w.seq_len_q)
    cuts = {unmasked, bisect_left(visits, j + 1), bisect_right(visits, j + 1), ragged}
    bounds = [lo, *sorted(c for c in cuts if lo < c < tr), tr]
    return [range(a, b) for a, b in pairwise(bounds)]
