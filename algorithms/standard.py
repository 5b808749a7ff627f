"""Standard attention: S = QK^T, P = softmax(S), O = PV, with S and P in HBM (seed 001, section 1).

Kernels 1 and 3 are :mod:`algorithms.materialised`'s. The softmax (kernel 2)
reads each row of S once and writes P once, as seed 001's accounting has it:
one CTA per query row keeps the whole row on chip (in shared memory, fp32),
so the max, sum and normalisation passes run over shared memory, not HBM.
That is the idealised softmax; it needs ``ceil(Nk/Bc)·Bc·4`` bytes of shared
memory per CTA, so it stops fitting past some 50k keys on an H100/H200 (real
libraries then fall back to a multi-pass kernel: see ``softmax-3pass`` and
``softmax-online``).

Global traffic per (batch, head), ``e`` bytes per element, ``Tr = ceil(Nq/Br)``,
without causal (with causal, ``Nq·Nk`` becomes the elements of the visible
tiles, clipped to the matrix, and ``Tr·Nk`` the keys of the visible tiles):

- kernel 1: read ``Q`` ``Nq·d·e``, ``K`` ``Tr·Nk·d·e``; write ``S`` ``Nq·Nk·e``;
- kernel 2: read ``S`` ``Nq·Nk·e``; write ``P`` ``Nq·Nk·e``;
- kernel 3: read ``P`` ``Nq·Nk·e``, ``V`` ``Tr·Nk·d·e``; write ``O`` ``Nq·d·e``.

Seed 001 counts K and V once (``3·N·d`` for Q, K, V); tiled kernels fetch them
once per row stripe from the memory system, most of it hitting in L2.
Exponentials: ``Nq·Nk``.
"""

from __future__ import annotations

import math
from functools import cached_property

from algorithms.base import Kernel, OnChip, ceil_div
from algorithms.materialised import (
    MaterialisedAttention,
    load_scores,
    row_block_key,
)
from algorithms.register_estimate import FP32, gemm_regs
from algorithms.standard_bwd import standard_backward_kernels
from algorithms.tile_machine import TileMachine
from algorithms.tiling import visible_kv_blocks
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Bytes one thread of the row softmax keeps in flight (two 16-byte loads, see below).
ROW_LOAD_BYTES_IN_FLIGHT = 32


class RowOnChipSoftmaxKernel(Kernel):
    """Kernel 2: one CTA per query row; the row is read once into shared memory."""

    def blocks_per_bh(self) -> int:
        return self.workload.seq_len_q

    @cached_property
    def _block_keys(self) -> dict[int, tuple[int, int, bool]]:
        return {}

    def block_class(self, block: int):
        # Every row of a Q block reads and masks the same tiles (kernel 1 wrote them whole).
        qb = block // self.schedule.block_m
        keys = self._block_keys
        if qb not in keys:
            s = self.schedule
            keys[qb] = row_block_key(self.workload, qb * s.block_m, s.block_m, s.block_n)
        return keys[qb][:2]

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        bc = s.block_n
        q0 = block // s.block_m * s.block_m
        n = visible_kv_blocks(w, q0, s.block_m, bc)
        row = []  # the row's chunks, all kept on chip: HBM is read once
        m = tm.full(1, None, -math.inf)
        for j in range(n):
            with tm.step():
                row.append(load_scores(tm, w, bh, block, 1, q0, j * bc, bc))
                m = tm.maximum(m, tm.row_max(row[-1]))
        den = tm.full(1, None, 0.0)
        exps = []
        for t in row:
            exps.append(tm.exp_sub_rows(t, m))
            den = tm.add(den, tm.row_sum(exps[-1]))
        for j, e in enumerate(exps):
            tm.store("P", bh, block, tm.div_rows(e, den), j * bc)

    def load_bytes_in_flight_per_thread(self) -> int:
        # The row is read by a loop whose trips each wait for their loads before storing
        # them to shared memory: gpusim/validation/cuda/row_softmax.cu compiled for sm_90
        # (nvcc 13.0, cuobjdump -sass) unrolls it by two, LDG.E.128 x 2 then STS.128, so a
        # thread has two 16-byte loads in flight and a long row takes many round trips.
        return ROW_LOAD_BYTES_IN_FLIGHT

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        row_bytes = ceil_div(w.seq_len_k, s.block_n) * s.block_n * FP32
        return OnChip({"S_row": row_bytes}, 32 * s.warps, gemm_regs(s, 1, s.block_n))


class Standard(MaterialisedAttention):
    """S = QK^T, P = softmax(S), O = PV, each a kernel, S and P in HBM, each S row read once."""

    name = "standard"
    description = "S = QK^T, P = softmax(S), O = PV, with S and P in HBM (seed 001, section 1)"
    supports_backward = True

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        if workload.pass_ == "bwd":  # from the P the forward left in HBM
            return standard_backward_kernels(workload, schedule)
        forward = super().kernels(workload, schedule.forward())
        if workload.pass_ == "fwd+bwd":
            return forward + standard_backward_kernels(workload, schedule.backward())
        return forward

    def softmax_kernel(self, workload: Workload, schedule: Schedule) -> Kernel:
        return RowOnChipSoftmaxKernel("softmax_row", workload, schedule, {"S": 1, "P": 1})
