"""Seed 000's 1-pass single-query order ``flashattn_naiveQKV``: one query per CTA against every key.

Each CTA owns one query row (``block_m`` must be 1), loads it once and visits
the keys ``block_n`` at a time (the seed's is 1), keeping ``m``, ``l`` and the
normalised output ``o`` on chip with the seed's recurrence
``o_new = (o·l·exp(m - m_new) + exp(x - m_new)·v) / l_new``; it writes ``o`` once.

Global traffic per (batch, head), ``e`` bytes per element, ``n_r`` the visible
tiles of row ``r`` (``ceil(Nk/Bc)`` without causal), ``k_r`` their valid keys:

- read: ``Q`` ``Nq·d·e``; ``K``, ``V`` ``sum_r k_r·d·e`` each (``Nq·Nk·d·e``
  without causal: every query reads all of K and V, the seed's
  ``2·N·d + 2·d`` per query);
- written: ``O`` ``Nq·d·e``.
"""

from __future__ import annotations

from algorithms.base import Algorithm, Kernel, OnChip
from algorithms.recurrence import initial_state, normalised_update, scores
from algorithms.register_estimate import FP32, register_estimate
from algorithms.tile_machine import TileMachine
from algorithms.tiling import first_masked_tile, visible_kv_blocks
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class NaiveQKVKernel(Kernel):
    """One CTA per query row."""

    def blocks_per_bh(self) -> int:
        return self.workload.seq_len_q

    def block_class(self, block: int):
        w, bc = self.workload, self.schedule.block_n
        n = visible_kv_blocks(w, block, 1, bc)
        return n, first_masked_tile(w, block, bc, n)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, bc = self.workload, self.schedule.block_n
        q = tm.load("Q", bh, block, 1)
        m, den, o = initial_state(tm, 1, w.head_dim)
        for j in range(visible_kv_blocks(w, block, 1, bc)):
            with tm.step():
                k = tm.load("K", self.tensor_bh("K", bh), j * bc, bc)
                v = tm.load("V", self.tensor_bh("V", bh), j * bc, bc)
                m, den, o = normalised_update(
                    tm, scores(tm, w, q, k, block, j * bc, bc), v, m, den, o
                )
        tm.store("O", bh, block, o)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d = w.elem_bytes, w.head_dim
        bufs = {"Q": d * e, "K": s.stages * s.block_n * d * e, "V": s.stages * s.block_n * d * e}
        if s.residency == "smem":
            bufs |= {"S": s.block_n * FP32, "O": d * FP32, "m_l": 2 * FP32}
        return OnChip(bufs, 32 * s.warps, register_estimate(w, s))


class FlashNaiveQKV(Algorithm):
    """Seed 000's naive Q-outer order: one query per CTA, state on chip."""

    name = "flash-naive-qkv"
    supports_gqa = True  # its kernels read K and V at the query head's K/V head
    description = "1-pass single-query order: one query at a time against every key (seed 000)"

    def check(self, workload: Workload, schedule: Schedule) -> None:
        super().check(workload, schedule)
        if schedule.block_m != 1:
            raise GpusimError(
                f"flash-naive-qkv runs one query per CTA: --block-m must be 1, "
                f"not {schedule.block_m} (--block-n sets the keys per step)"
            )

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        return [NaiveQKVKernel("naive_qkv", workload, schedule, {"Q": 1, "O": 1})]
