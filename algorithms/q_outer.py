"""The Q-outer tile kernel that flash2 and its split-KV form share: rows, K/V walk, footprint.

A CTA holds a tile of ``Br`` query rows and walks K/V blocks, keeping ``m``, ``l``
and the unnormalised output on chip (:func:`attend`, the K/V loop, written once).
What differs between the kernels built on it is which K/V blocks a CTA walks and
what it writes at the end (:mod:`algorithms.flash2`: ``O``; :mod:`algorithms.split_kv`:
a partial ``O`` and its log-sum-exp).

Rows of a tile (:class:`QRows`). Without ``pack_gqa`` a tile is ``Br`` queries of one
head and the grid has a CTA per (batch, head, query block); with GQA its K and V
are the K/V head's (``Workload.kv_bh``), so the ``G`` heads of a group re-read the same
tiles. With ``pack_gqa`` a tile is ``Br / G`` queries of each of the group's ``G``
heads, query-major (tile row ``r`` is query ``q0 + r // G`` of head ``g·G + r % G``,
as FlashAttention's ``pack_gqa``), and the grid has a CTA per (batch, K/V head, block of
``Br / G`` queries): a decode step (Nq = 1, G = 4) fills 4 rows of one tile instead of
one row in each of 4 CTAs, and reads the group's K/V once. Each packed row keeps its
own query index for the causal mask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from algorithms.base import KV_TENSORS, CompiledKernel, Kernel, OnChip, ceil_div
from algorithms.recurrence import initial_state, scores, unnormalised_update
from algorithms.register_estimate import FP32, register_estimate
from algorithms.tile_machine import Tile, TileMachine
from algorithms.tiling import needs_mask
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: The CUDA kernel of each storage type (gpusim/kernels/flash2_tc.cu, flash2_simt.cu).
COMPILED_VARIANT: dict[str, Literal["tc", "simt"]] = {"fp16": "tc", "bf16": "tc", "fp32": "simt"}


def barriers_per_step(dtype: str, stages: int) -> int:
    """``__syncthreads()`` per K/V step of the kernels (gpusim/kernels): the pipelined loop
    waits once (its tile landed for every thread, and the oldest stage is free); with one
    stage, flash2_tc.cu keeps a buffer each for K and V and waits three times (K landed, V
    landed and K free, V free), flash2_simt.cu twice (the previous tile free, this one
    landed). Their SASS agrees (``BAR`` in
    data/sm90/2026-11-30_kernels_build/loop_paths.json.gz)."""
    if stages > 1:
        return 1
    return 2 if dtype == "fp32" else 3


@dataclass(frozen=True)
class QRows:
    """How a tile's ``Br`` rows map to queries: ``heads`` heads packed, ``queries`` each."""

    heads: int  # query heads whose rows share the tile (the GQA group with pack_gqa, else 1)
    queries: int  # queries per tile: Br / heads


def q_rows(w: Workload, s: Schedule) -> QRows:
    """The row mapping of ``s`` on ``w`` (see the module's docstring)."""
    heads = w.group_size if s.pack_gqa else 1
    return QRows(heads, s.block_m // heads)


#: The tensor-core kernel's long-context template switches, in template order (KV_BACK,
#: Q_FIRST, GQA, SPLIT, PACK), by their KernelInstance field names.
SWITCHES = ("kv_backward", "q_first", "gqa", "split", "pack")


def long_context_switches(w: Workload, s: Schedule) -> tuple[bool, bool, bool, bool, bool]:
    """Which of :data:`SWITCHES` a workload and schedule ask of the compiled kernel."""
    return (
        s.kv_order == "backward",
        s.q_order == "first-first",
        w.kv_heads != w.heads,
        s.kv_splits > 1,
        s.pack_gqa,
    )


def check_packing(w: Workload, s: Schedule) -> None:
    """Refuse a ``pack_gqa`` that cannot be honoured, in one line."""
    if not s.pack_gqa:
        return
    if w.group_size == 1:
        raise GpusimError(
            f"--pack-gqa needs grouped K/V heads (--heads-kv smaller than --heads {w.heads})"
        )
    if s.block_m % w.group_size:
        raise GpusimError(
            f"--pack-gqa puts the {w.group_size} heads of a group into one tile's rows: "
            f"--block-m {s.block_m} must be a multiple of {w.group_size}"
        )


def kv_walk(first: int, end: int, order: str) -> range:
    """K/V blocks ``first .. end - 1`` in the schedule's ``kv_order``: ``forward`` from
    ``first`` up, or ``backward`` from ``end - 1`` (the diagonal, under a causal mask) down."""
    return range(first, end) if order == "forward" else range(end - 1, first - 1, -1)


def _split_at_mask(w: Workload, q0: int, bc: int, blocks: range) -> tuple[range, range]:
    """``blocks`` (a walk of step 1 or -1) as the tiles that need no mask and those that do,
    each in the walk's order. ``needs_mask`` holds from one tile on (past the diagonal, or
    the ragged last tile), so a bisection finds that tile: a test per tile was most of a
    long causal grid's tracing (134 million tests at a million tokens)."""
    lo, hi = (blocks.start, blocks.stop) if blocks.step > 0 else (blocks.stop + 1, blocks.start + 1)
    a, b = lo, max(lo, hi)
    while a < b:  # the first tile in [lo, hi) that needs a mask (hi: none)
        mid = (a + b) // 2
        if needs_mask(w, q0, mid * bc, bc):
            b = mid
        else:
            a = mid + 1
    if blocks.step > 0:
        return range(lo, a), range(a, max(a, hi))
    return range(a - 1, lo - 1, -1), range(hi - 1, a - 1, -1)


def attend(
    tm: TileMachine, kernel: Kernel, q: Tile, kv_bh: int, q0: int, blocks: range, heads: int
) -> tuple[Tile, Tile, Tile]:
    """The K/V loop: ``(m, l, acc)`` of the tile ``q`` (queries from ``q0``, ``heads``
    packed) after the K/V blocks ``blocks`` of K/V batch-head ``kv_bh``, in that order."""
    w, s = kernel.workload, kernel.schedule
    bc = s.block_n
    state = initial_state(tm, s.block_m, w.head_dim)
    # The tiles that need no mask are alike but for their rows: one compressed step when
    # traced. Masking is monotone along a query block (tiling.first_masked_tile), so in
    # either order the walk is one run of unmasked tiles and one of masked ones.
    unmasked, masked = _split_at_mask(w, q0, bc, blocks)
    runs = (tm.repeat(unmasked), masked) if blocks.step > 0 else (masked, tm.repeat(unmasked))
    for run in runs:
        for j in run:
            k0 = j * bc
            with tm.step():
                k = tm.load("K", kv_bh, k0, bc)
                v = tm.load("V", kv_bh, k0, bc)
                sc = scores(tm, w, q, k, q0, k0, bc, heads=heads)
                state = unnormalised_update(tm, sc, v, *state)
                for _ in range(barriers_per_step(w.dtype, s.stages)):
                    tm.barrier()
    return state


class QOuterKernel(Kernel):
    """A CTA per (grid batch-head, tile of query rows): the footprint and grid of flash2."""

    @property
    def rows(self) -> QRows:
        """How this kernel's tile rows map to heads and queries."""
        return q_rows(self.workload, self.schedule)

    def q_blocks(self) -> int:
        """Tiles of query rows per grid batch-head."""
        return ceil_div(self.workload.seq_len_q, self.rows.queries)

    @property
    def grid_batch_heads(self) -> int:
        w = self.workload
        return w.batch_heads_kv if self.schedule.pack_gqa else w.batch_heads

    def kv_group(self) -> int:
        return 1 if self.schedule.pack_gqa else self.workload.group_size

    def tensor_bh(self, tensor: str, bh: int) -> int:
        if self.schedule.pack_gqa and tensor not in KV_TENSORS:
            return bh * self.workload.group_size  # the group's first query head
        return super().tensor_bh(tensor, bh)

    def uses_tile_instance(self) -> bool:
        return True

    def last_blocks_first(self) -> bool:
        # flash2_tc.cu and flash2_simt.cu: m_block = gridDim.x - 1 - blockIdx.x (q_order
        # "last-first"), so that under a causal mask the longest CTAs start first and the
        # grid's tail is short.
        return self.schedule.q_order == "last-first"

    def tile_instance(self) -> CompiledKernel | None:
        """The compiled tile kernel whose code this kernel's main loop is, where the CUDA
        kernels implement every schedule field it uses (None otherwise); a split-KV
        schedule's is the split form (only its split kernel has ``kv_splits`` > 1)."""
        # Both CUDA kernels split the Q rows over the warps and keep S/P and O in registers.
        # The tensor-core kernel has the long-context fields as template switches (split,
        # backward K/V walk, first-first launch, grouped K/V heads, packed heads:
        # long_context_switches); the fp32
        # kernel launches the last query blocks first and walks K/V forward over one K/V
        # head per query head, and has no split form.
        w, s = self.workload, self.schedule
        variant = COMPILED_VARIANT.get(w.dtype)
        if variant is None or (s.warp_split, s.residency) != ("split-q", "registers"):
            return None
        switches = tuple(
            name for name, on in zip(SWITCHES, long_context_switches(w, s), strict=True) if on
        )
        if switches and variant != "tc":
            return None
        args = (w.head_dim, s.block_m, s.block_n, s.warps, s.stages)
        return CompiledKernel(variant, w.dtype, *args, switches=switches)

    def copies_into_padded_rows(self) -> bool:
        # The fp32 kernel (flash2_simt.cu) copies its tiles with 16-byte cp.async into shared
        # rows padded by 16 bytes (against bank conflicts of its float4 reads); the
        # tensor-core kernel's rows are swizzled, not padded
        # (data/h200/2026-11-30_calibration_l2_bytes).
        return self.workload.dtype == "fp32"

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d = w.elem_bytes, w.head_dim
        bufs = {
            "Q": s.block_m * d * e,
            "K": s.stages * s.block_n * d * e,
            "V": s.stages * s.block_n * d * e,
        }
        if s.residency == "smem":
            bufs |= {
                "S": s.block_m * s.block_n * FP32,
                "O": s.block_m * d * FP32,
                "m_l": 2 * s.block_m * FP32,
            }
        # Producer warps (warp specialization) are threads of the CTA beside the compute warps.
        return OnChip(bufs, 32 * (s.warps + s.producer_warps), register_estimate(w, s))
