"""FlashAttention-2: Q-block outer loop, one CTA per Q block, state on chip.

Seed 000's ``flashattnV1_block`` and the FlashAttention-2 paper's forward pass:
each CTA loads its Q tile once, walks the K/V tiles keeping the running row
maximum ``m``, denominator ``l`` and unnormalised output ``O`` on chip, and
normalises once at the end. With causal masking, K/V tiles entirely above the
diagonal are skipped (never loaded or computed) and only tiles that cross it
(or run past the last key) are masked.

Global traffic per (batch, head), ``e`` bytes per element, ``Tr = ceil(Nq/Br)``,
``n_i`` the K/V tiles visited by Q block ``i`` (``Tc = ceil(Nk/Bc)`` without
causal), ``k_i`` the valid keys in those tiles:

- read: ``Q``: ``Nq·d·e``; ``K`` and ``V``: ``sum_i k_i·d·e`` each
  (``= Tr·Nk·d·e`` without causal: K and V once per Q block);
- written: ``O``: ``Nq·d·e``.

The schedule's long-context fields: ``kv_order`` (walk the K/V blocks forward from 0 or
backward from the last visible one), ``q_order`` (launch order of the query blocks),
``pack_gqa`` (a GQA group's heads in one tile's rows: :mod:`algorithms.q_outer`), and
``kv_splits > 1``, which makes it two kernels (:mod:`algorithms.split_kv`). With grouped
K/V heads, K and V are read at the query head's K/V head.
"""

from __future__ import annotations

from algorithms.base import Algorithm, CompiledKernel, Kernel
from algorithms.flash2_bwd import backward_kernels, check_backward
from algorithms.q_outer import (
    COMPILED_VARIANT,
    QOuterKernel,
    attend,
    barriers_per_step,
    check_packing,
    kv_walk,
)
from algorithms.register_estimate import register_estimate
from algorithms.split_kv import check_splits, split_kernels
from algorithms.tile_machine import TileMachine
from algorithms.tiling import needs_mask, visible_kv_blocks
from gpusim.schedule import Schedule
from gpusim.workload import Workload

__all__ = [
    "COMPILED_VARIANT",
    "Flash2",
    "Flash2Kernel",
    "barriers_per_step",
    "needs_mask",
    "register_estimate",
    "visible_kv_blocks",
]


class Flash2Kernel(QOuterKernel):
    """The single kernel of FlashAttention-2's forward pass (without split-KV)."""

    def blocks_per_bh(self) -> int:
        return self.q_blocks()

    def block_class(self, block: int):
        w, q = self.workload, self.rows.queries
        if w.causal:
            return block
        return (block * q + q > w.seq_len_q,)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s, rows = self.workload, self.schedule, self.rows
        q0 = block * rows.queries
        q_bh = self.tensor_bh("Q", bh)
        q = tm.load("Q", q_bh, q0, s.block_m, heads=rows.heads)
        visible = visible_kv_blocks(w, q0, rows.queries, s.block_n)
        blocks = kv_walk(0, visible, s.kv_order)
        m, den, acc = attend(tm, self, q, self.tensor_bh("K", bh), q0, blocks, rows.heads)
        tm.store("O", q_bh, q0, tm.div_rows(acc, den), heads=rows.heads)
        if w.backward:  # a training step's forward keeps each row's log-sum-exp for the backward
            tm.store("LSE", q_bh, q0, tm.add(m, tm.log(den)), heads=rows.heads)

    def compiled_kernel(self) -> CompiledKernel | None:
        return self.tile_instance()


class Flash2(Algorithm):
    """FlashAttention-2 forward (Q-outer, state on chip); split-KV decoding with kv_splits."""

    name = "flash2"
    supports_orders = frozenset({"q_order", "kv_order", "kv_splits", "pack_gqa"})
    supports_gqa = True
    supports_backward = True
    description = (
        "tiled, Q-block outer loop (one CTA per Q block), running m/den/O on chip, "
        "one final normalisation (FlashAttention-2; seed 000 flashattnV1_block)"
    )

    def check(self, workload: Workload, schedule: Schedule) -> None:
        super().check(workload, schedule)
        if workload.backward:
            check_backward(workload, schedule.backward())
        check_packing(workload, schedule.forward())
        check_splits(workload, schedule.forward())

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        if workload.pass_ == "bwd":
            return backward_kernels(workload, schedule)
        forward = self._forward_kernels(workload, schedule.forward())
        if workload.pass_ == "fwd+bwd":
            return forward + backward_kernels(workload, schedule.backward())
        return forward

    def _forward_kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        if schedule.kv_splits > 1:
            return split_kernels(workload, schedule)
        queries = schedule.block_m // (workload.group_size if schedule.pack_gqa else 1)
        own = {"Q": queries, "O": queries, "LSE": queries}
        return [Flash2Kernel("flash2_fwd", workload, schedule, own)]
