"""Split-KV decoding (FlashDecoding) for flash2: a split kernel over key slices, then a combine.

With ``kv_splits = N > 1`` flash2 launches two kernels:

1. ``flash2_split``: ``N`` CTAs per (grid batch-head, query tile), each walking one slice
   of the key blocks with the flash2 loop (:func:`algorithms.q_outer.attend`). Block
   ``b = s·Tq + i`` is split ``s`` of query tile ``i`` (``Tq`` tiles), so the CTAs of one
   split are launched together and share its K/V tiles in L2, and the CTAs of a class
   (one split, one kind of tile) differ only by a row shift. Split ``s`` covers the key
   blocks ``[s·Tc // N, (s+1)·Tc // N)`` (``Tc = ceil(Nk/Bc)``: whole key blocks, slice
   sizes differing by at most one when ``N`` does not divide ``Tc``), clipped to the
   blocks its query tile sees (under a causal mask, a prefix). A CTA whose slice is
   empty for its tile exits at once and writes nothing.

   Each CTA writes, fp32, its **normalised** partial output ``O_s = acc / l`` to
   ``Opart`` (columns ``s·d ..``) and its log-sum-exp ``LSE_s = m + log l`` to ``LSE``
   (column ``s``), as FlashAttention's split kernel does. A row that sees no key of its
   slice (bottom-right causal alignment puts some rows' diagonal before the slice) has
   ``l = 0``: ``O_s = 0`` and ``LSE_s = -inf``, no NaN.

2. ``flash2_combine``: a CTA per (batch, head, block of ``R`` query rows), ``R`` the
   largest divisor of the split tile's queries up to :data:`COMBINE_ROWS` (so a block
   lies in one split tile and knows which splits have keys for it: it reads only those).
   ``M = max_s LSE_s``, ``w_s = exp(LSE_s - M)`` (0 for a ``-inf``), and
   ``O = sum_s w_s O_s / sum_s w_s``; since ``w_s = exp(m_s - M) l_s`` and so
   ``w_s O_s = exp(m_s - M) acc_s``, this is ``sum_s exp(m_s - M) acc_s`` over
   ``sum_s exp(m_s - M) l_s``: exactly ``softmax(S) V`` over all the keys. A row
   that sees no key at all (``M = -inf``; Nq > Nk causal) has a zero sum and gets zeros,
   as does a block whose splits all exited.

Traffic per grid batch-head, without causal, ``q`` queries per tile (``Br``, or
``Br / G`` with ``pack_gqa``): split kernel: ``Q`` ``N·Nq·d·e`` (each split reads its
tile), ``K``, ``V`` ``Tq·Nk·d·e`` each (the slices cover the keys once per tile),
``Opart`` ``N·Nq·d·4`` and ``LSE`` ``N·Nq·4`` written; combine: those read back, ``O``
``Nq·d·e`` written.
"""

from __future__ import annotations

from algorithms.base import CompiledKernel, Kernel, OnChip, ceil_div
from algorithms.q_outer import QOuterKernel, attend, kv_walk, q_rows
from algorithms.register_estimate import FP32, accumulator_regs
from algorithms.tile_machine import TileMachine
from algorithms.tiling import kv_blocks, visible_kv_blocks
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Most query rows a combine CTA takes (FlashAttention's combine takes 4-16 rows of d=128).
COMBINE_ROWS = 16
#: Warps of a combine CTA.
COMBINE_WARPS = 4


def split_slice(w: Workload, s: Schedule, split: int) -> range:
    """The key blocks of split ``split`` before causal clipping (whole blocks, even sizes)."""
    total, n = kv_blocks(w, s.block_n), s.kv_splits
    return range(split * total // n, (split + 1) * total // n)


def splits_with_keys(w: Workload, s: Schedule, visible: int) -> int:
    """How many splits have keys for a tile that sees the first ``visible`` key blocks
    (the slices are in order, so those are splits ``0 ..``)."""
    return sum(1 for i in range(s.kv_splits) if split_slice(w, s, i).start < visible)


def check_splits(w: Workload, s: Schedule) -> None:
    """Refuse more splits than key blocks, in one line (with the numbers)."""
    if s.kv_splits == 1:
        return
    total = kv_blocks(w, s.block_n)
    if s.kv_splits > total:
        raise GpusimError(
            f"--kv-splits {s.kv_splits} is larger than the {total} key blocks a query block "
            f"sees (--seq-len-k {w.seq_len_k} in blocks of --block-n {s.block_n}); use at "
            f"most {total}"
        )


def combine_rows(tile_queries: int) -> int:
    """Query rows per combine CTA: the largest divisor of ``tile_queries`` up to COMBINE_ROWS."""
    return max(r for r in range(1, min(COMBINE_ROWS, tile_queries) + 1) if tile_queries % r == 0)


class SplitKernel(QOuterKernel):
    """Kernel 1: the flash2 loop over one key slice, writing a partial O and its LSE."""

    def blocks_per_bh(self) -> int:
        return self.schedule.kv_splits * self.q_blocks()

    def _slice(self, block: int) -> tuple[int, int, range]:
        """``(split, first query, key blocks)`` of CTA ``block``."""
        w, s, q = self.workload, self.schedule, self.rows.queries
        split, tile = divmod(block, self.q_blocks())
        q0 = tile * q
        keys = split_slice(w, s, split)
        return split, q0, range(keys.start, min(keys.stop, visible_kv_blocks(w, q0, q, s.block_n)))

    def block_class(self, block: int):
        w, q = self.workload, self.rows.queries
        split, q0, _keys = self._slice(block)
        if w.causal:
            return block
        return (split, q0 + q > w.seq_len_q)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s, rows = self.workload, self.schedule, self.rows
        split, q0, keys = self._slice(block)
        if not keys:
            return  # no key of this slice is visible to the tile: the combine skips it
        q_bh = self.tensor_bh("Q", bh)
        q = tm.load("Q", q_bh, q0, s.block_m, heads=rows.heads)
        blocks = kv_walk(keys.start, keys.stop, s.kv_order)
        m, den, acc = attend(tm, self, q, self.tensor_bh("K", bh), q0, blocks, rows.heads)
        col = split * w.head_dim
        tm.store("Opart", q_bh, q0, tm.div_rows(acc, den), col, heads=rows.heads)
        tm.store("LSE", q_bh, q0, tm.add(m, tm.log(den)), split, heads=rows.heads)

    def compiled_kernel(self) -> CompiledKernel | None:
        # flash2_tc.cu's split form (the SPLIT switch); flash2_combine.cu is the combine
        return self.tile_instance()


class CombineKernel(Kernel):
    """Kernel 2: ``O`` from the partials of the splits that have keys for each row block."""

    @property
    def rows(self) -> int:
        """Query rows per CTA."""
        return combine_rows(q_rows(self.workload, self.schedule).queries)

    def blocks_per_bh(self) -> int:
        return ceil_div(self.workload.seq_len_q, self.rows)

    def _splits(self, block: int) -> int:
        """Splits that wrote partials for block ``block``'s rows."""
        w, s = self.workload, self.schedule
        tile_q = q_rows(w, s).queries
        q0 = block * self.rows // tile_q * tile_q  # the split tile's first query
        return splits_with_keys(w, s, visible_kv_blocks(w, q0, tile_q, s.block_n))

    def block_class(self, block: int):
        r = self.rows
        return (self._splits(block), block * r + r > self.workload.seq_len_q)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, r = self.workload, self.rows
        r0, n = block * r, self._splits(block)
        if n == 0:  # every split exited: these rows see no key at all
            tm.store("O", bh, r0, tm.full(r, w.head_dim, 0.0))
            return
        lse = [tm.load("LSE", bh, r0, r, split) for split in range(n)]
        top = lse[0]
        for x in lse[1:]:
            top = tm.maximum(top, x)
        acc, den = tm.full(r, w.head_dim, 0.0), tm.full(r, None, 0.0)
        for split in range(n):
            with tm.step():
                # exp(LSE_s - M); exp_diff subtracts 0 where M = -inf, so -inf gives 0.
                weight = tm.exp_diff(lse[split], top)
                part = tm.load("Opart", bh, r0, r, split * w.head_dim, w.head_dim)
                acc = tm.add(acc, tm.scale_rows(part, weight))
                den = tm.add(den, weight)
        tm.store("O", bh, r0, tm.div_rows(acc, den))

    def loads_tiles_async(self) -> bool:
        # flash2_combine.cu reads the partials with float4 loads into registers, as
        # FlashAttention-2's combine does: no tile stream
        return False

    def on_chip(self) -> OnChip:
        # As FlashAttention-2's combine kernel: the LSE table of its rows in shared memory,
        # the partial outputs read straight into registers (the tracer, whose tile loads
        # all land in shared memory, charges them as fills: a few KB per CTA too many).
        w, s, r = self.workload, self.schedule, self.rows
        threads = 32 * COMBINE_WARPS
        return OnChip(
            {"LSE": s.kv_splits * r * FP32}, threads, accumulator_regs(r * w.head_dim, threads)
        )


def split_kernels(workload: Workload, schedule: Schedule) -> list[Kernel]:
    """flash2's two kernels for ``schedule.kv_splits > 1``."""
    q = q_rows(workload, schedule).queries
    split = SplitKernel("flash2_split", workload, schedule, {"Q": q, "Opart": q, "LSE": q})
    r = combine_rows(q)
    combine = CombineKernel("flash2_combine", workload, schedule, {"Opart": r, "LSE": r, "O": r})
    return [split, combine]
