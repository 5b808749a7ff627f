"""Attention with S and P materialised in HBM: the kernels shared by standard and the softmaxes.

Three kernels, each with one CTA per Br-row block of queries (a row stripe, so
that CTAs of one class differ only by a row shift):

1. ``scores``: loads its Q tile once and, for each K tile, writes
   ``S = Q K^T / sqrt(d)`` (a Br x Bc tile, in the storage type, unmasked);
2. a row softmax that reads S and writes P (the three algorithms differ here
   only, see :mod:`algorithms.standard`, :mod:`algorithms.softmax_3pass`,
   :mod:`algorithms.softmax_online`); it applies the causal / ragged mask;
3. ``pv``: ``O = P V``, accumulating over the K/V tiles on chip.

With causal masking, tiles above the diagonal are skipped in all three
kernels (S and P there are never computed, read or written); diagonal tiles
are masked in kernel 2, so P holds zeros above the diagonal inside them.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Iterable, Iterator

from algorithms.base import Algorithm, Kernel, OnChip
from algorithms.register_estimate import FP32, gemm_regs
from algorithms.tile_machine import Tile, TileMachine
from algorithms.tiling import first_masked_tile, needs_mask, q_blocks, visible_kv_blocks
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def row_block_key(w: Workload, q0: int, br: int, bc: int) -> tuple[int, int, bool]:
    """What makes a Br-row block's program distinct: (tiles visited, first masked tile, last?)."""
    n = visible_kv_blocks(w, q0, br, bc)
    return n, first_masked_tile(w, q0, bc, n), q0 + br > w.seq_len_q


class RowBlockKernel(Kernel):
    """A kernel with one CTA per Br-row block of the queries."""

    def blocks_per_bh(self) -> int:
        return q_blocks(self.workload, self.schedule.block_m)

    def block_class(self, block: int):
        s = self.schedule
        return row_block_key(self.workload, block * s.block_m, s.block_m, s.block_n)

    def visits(self, block: int) -> int:
        """K/V tiles visited by Q block ``block``."""
        s = self.schedule
        return visible_kv_blocks(self.workload, block * s.block_m, s.block_m, s.block_n)

    def threads(self) -> int:
        """Threads per CTA."""
        return 32 * self.schedule.warps


class ScoresKernel(RowBlockKernel):
    """Kernel 1: ``S = Q K^T / sqrt(d)`` for the visible tiles of one row stripe."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        br, bc = s.block_m, s.block_n
        q0 = block * br
        q = tm.load("Q", bh, q0, br)
        n = self.visits(block)
        full = max(0, n - 1) if w.seq_len_k % bc else n  # the ragged K tile (fewer bytes) last
        for js in (tm.repeat(range(full)), range(full, n)):
            for j in js:
                with tm.step():
                    k = tm.load("K", self.tensor_bh("K", bh), j * bc, bc)
                    s_tile = tm.matmul(q, k, transpose_b=True, scale=w.head_dim**-0.5)
                    tm.store("S", bh, q0, s_tile, j * bc)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d = w.elem_bytes, w.head_dim
        bufs = {"Q": s.block_m * d * e, "K": s.stages * s.block_n * d * e}
        if s.residency == "smem":
            bufs["S"] = s.block_m * s.block_n * FP32
        return OnChip(bufs, self.threads(), gemm_regs(s, s.block_m, s.block_n))


class PVKernel(RowBlockKernel):
    """Kernel 3: ``O = P V`` for one row stripe, accumulated on chip over the visible tiles."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        br, bc = s.block_m, s.block_n
        q0 = block * br
        acc = tm.full(br, w.head_dim, 0.0)
        n = self.visits(block)
        full = max(0, n - 1) if w.seq_len_k % bc else n  # the ragged V tile (fewer bytes) last
        for js in (tm.repeat(range(full)), range(full, n)):
            for j in js:
                with tm.step():
                    p = tm.load("P", bh, q0, br, j * bc, bc)
                    v = tm.load("V", self.tensor_bh("V", bh), j * bc, bc)
                    acc = tm.matmul_acc(acc, p, v)
        tm.store("O", bh, q0, acc)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d = w.elem_bytes, w.head_dim
        bufs = {"P": s.stages * s.block_m * s.block_n * e, "V": s.stages * s.block_n * d * e}
        if s.residency == "smem":
            bufs["O"] = s.block_m * d * FP32
        return OnChip(bufs, self.threads(), gemm_regs(s, s.block_m, d))


def load_scores(
    tm: TileMachine, w: Workload, bh: int, r0: int, rows: int, q0: int, k0: int, bc: int
) -> Tile:
    """Load S rows ``[r0, r0+rows)`` at key tile ``k0``; mask it if its Q block's tile needs it."""
    t = tm.load("S", bh, r0, rows, k0, bc)
    return tm.mask(t, r0, k0) if needs_mask(w, q0, k0, bc) else t


def chunk_walk(tm: TileMachine, w: Workload, q0: int, bc: int, n: int) -> Iterator[int]:
    """The ``n`` chunks of a row block's pass over S, in order: the unmasked ones as one
    compressed loop (alike but for their columns), then the masked ones (the diagonal, the
    ragged last keys) one by one; so a pass over 100k keys traces in a few steps."""
    first = first_masked_tile(w, q0, bc, n)
    yield from tm.repeat(range(first))
    yield from range(first, n)


def streamed_max(tm: TileMachine, load, walk: Iterable[int], rows: int) -> Tile:
    """Pass 1 of the 3-pass softmax: the row maximum over the chunks ``walk`` names, each
    read once."""
    m = tm.full(rows, None, -math.inf)
    for j in walk:
        with tm.step():
            m = tm.maximum(m, tm.row_max(load(j)))
    return m


def write_normalised(
    tm: TileMachine, load, walk: Iterable[int], bh: int, r0: int, bc: int, m: Tile, den: Tile
) -> None:
    """Last pass of the streamed softmaxes: read each chunk ``walk`` names again, write
    ``P = exp(S-m)/l``."""
    for j in walk:
        with tm.step():
            tm.store("P", bh, r0, tm.div_rows(tm.exp_sub_rows(load(j), m), den), j * bc)


class RowSoftmaxKernel(RowBlockKernel):
    """Kernel 2 of the streamed softmaxes: one CTA per Br-row block, reading S in Bc-wide chunks."""

    def walk(self, tm: TileMachine, block: int) -> Iterator[int]:
        """One pass over this row block's chunks (:func:`chunk_walk`)."""
        s = self.schedule
        return chunk_walk(tm, self.workload, block * s.block_m, s.block_n, self.visits(block))

    def chunk_loader(self, tm: TileMachine, bh: int, block: int):
        """A function ``j -> S chunk j`` of this row block, masked where needed."""
        w, s = self.workload, self.schedule
        q0 = block * s.block_m

        def load(j: int) -> Tile:
            return load_scores(tm, w, bh, q0, s.block_m, q0, j * s.block_n, s.block_n)

        return load

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        bufs = {
            "S": s.stages * s.block_m * s.block_n * w.elem_bytes,
            "m_l": 2 * s.block_m * FP32,
        }
        return OnChip(bufs, self.threads(), gemm_regs(s, s.block_m, s.block_n))


class MaterialisedAttention(Algorithm):
    """An attention algorithm that writes S and P to HBM; subclasses give the softmax kernel."""

    supports_gqa = True  # kernels 1 and 3 read K and V at the query head's K/V head

    @abstractmethod
    def softmax_kernel(self, workload: Workload, schedule: Schedule) -> Kernel:
        """Kernel 2: reads S, writes P."""

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        br = schedule.block_m
        return [
            ScoresKernel("scores", workload, schedule, {"Q": br, "S": br}),
            self.softmax_kernel(workload, schedule),
            PVKernel("pv", workload, schedule, {"P": br, "O": br}),
        ]
