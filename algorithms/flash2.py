"""FlashAttention-2: Q-block outer loop, one CTA per Q block, state on chip.

Seed 000's ``flashattnV1_block`` and the FlashAttention-2 paper's forward pass:
each CTA loads its Q tile once, walks the K/V tiles keeping the running row
maximum ``m``, denominator ``l`` and unnormalised output ``O`` on chip, and
normalises once at the end. With causal masking, K/V tiles entirely above the
diagonal are skipped (never loaded or computed) and only tiles that cross it
(or run past the last key) are masked.

Global traffic per (batch, head), with ``Tr = ceil(Nq/Br)``: Q read once, O
written once, K and V read once per Q block (``Tr x Nk x d`` each; fewer with
causal skipping).
"""

from __future__ import annotations

import math

from algorithms.base import Algorithm, Kernel, OnChip, ceil_div
from algorithms.tile_machine import TileMachine
from gpusim.schedule import Schedule
from gpusim.workload import Workload

FP32 = 4


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


def register_estimate(w: Workload, s: Schedule) -> int:
    """Registers per thread for accumulators in registers (capped at the ISA's 255)."""
    threads = 32 * s.warps
    if s.residency == "smem":
        return 64
    if s.warp_split == "split-k":
        acc = s.block_m * w.head_dim // 32 + s.block_m * max(1, s.block_n // s.warps) // 32
    else:
        acc = (s.block_m * w.head_dim + s.block_m * s.block_n) // threads
    return min(255, acc + 40)


class Flash2Kernel(Kernel):
    """The single kernel of FlashAttention-2's forward pass."""

    def blocks_per_bh(self) -> int:
        return ceil_div(self.workload.seq_len_q, self.schedule.block_m)

    def block_class(self, block: int):
        w, s = self.workload, self.schedule
        q0 = block * s.block_m
        if w.causal:
            return block
        return (q0 + s.block_m > w.seq_len_q,)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        br, bc, d = s.block_m, s.block_n, w.head_dim
        q0 = block * br
        q = tm.load("Q", bh, q0, br)
        m = tm.full(br, None, -math.inf)
        l = tm.full(br, None, 0.0)
        acc = tm.full(br, d, 0.0)
        for j in range(visible_kv_blocks(w, q0, br, bc)):
            k0 = j * bc
            with tm.step():
                k = tm.load("K", bh, k0, bc)
                v = tm.load("V", bh, k0, bc)
                sc = tm.matmul(q, k, transpose_b=True, scale=1.0 / math.sqrt(d))
                if needs_mask(w, q0, k0, bc):
                    sc = tm.mask(sc, q0, k0)
                m_new = tm.maximum(m, tm.row_max(sc))
                p = tm.exp_sub_rows(sc, m_new)
                alpha = tm.exp_diff(m, m_new)
                l = tm.add(tm.scale_rows(l, alpha), tm.row_sum(p))
                acc = tm.matmul_acc(tm.scale_rows(acc, alpha), p, v)
                m = m_new
                if s.stages == 1:
                    tm.barrier()  # one buffer: the next load must wait for this compute
        tm.store("O", bh, q0, tm.div_rows(acc, l))

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
        return OnChip(bufs, 32 * s.warps, register_estimate(w, s))


class Flash2(Algorithm):
    """FlashAttention-2 forward (Q-outer, state on chip)."""

    name = "flash2"
    description = (
        "tiled, Q-block outer loop (one CTA per Q block), running m/l/O on chip, "
        "one final normalisation (FlashAttention-2; seed 000 flashattnV1_block)"
    )

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        own = {"Q": schedule.block_m, "O": schedule.block_m}
        return [Flash2Kernel("flash2_fwd", workload, schedule, own)]
