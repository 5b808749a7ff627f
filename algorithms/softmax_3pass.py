"""Attention with S in HBM and the safe softmax in three passes over each row (seed 000).

Kernels 1 and 3 are :mod:`algorithms.materialised`'s. Kernel 2 has one CTA per
Br-row block and reads S in Bc-wide chunks three times: the row maximum
``m``; the sum ``l`` of ``exp(S - m)``; then ``P = exp(S - m) / l``, written.

Global traffic per (batch, head), ``e`` bytes per element, ``Tr = ceil(Nq/Br)``,
without causal (with causal, ``Nq·Nk`` becomes the elements of the visible
tiles, clipped to the matrix, and ``Tr·Nk`` the keys of the visible tiles):

- kernel 1: read ``Q`` ``Nq·d·e``, ``K`` ``Tr·Nk·d·e``; write ``S`` ``Nq·Nk·e``;
- kernel 2: read ``S`` ``3·Nq·Nk·e``; write ``P`` ``Nq·Nk·e``;
- kernel 3: read ``P`` ``Nq·Nk·e``, ``V`` ``Tr·Nk·d·e``; write ``O`` ``Nq·d·e``.

Exponentials: ``2·Nq·Nk`` (passes 2 and 3 each recompute them).
"""

from __future__ import annotations

from algorithms.base import Kernel
from algorithms.materialised import (
    MaterialisedAttention,
    RowSoftmaxKernel,
    streamed_max,
    write_normalised,
)
from algorithms.tile_machine import TileMachine
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class ThreePassSoftmaxKernel(RowSoftmaxKernel):
    """Kernel 2: max pass, sum-of-exp pass, normalise-and-write pass."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        s = self.schedule
        br = s.block_m
        load = self.chunk_loader(tm, bh, block)
        m = streamed_max(tm, load, self.walk(tm, block), br)
        den = tm.full(br, None, 0.0)
        for j in self.walk(tm, block):
            with tm.step():
                den = tm.add(den, tm.row_sum(tm.exp_sub_rows(load(j), m)))
        write_normalised(tm, load, self.walk(tm, block), bh, block * br, s.block_n, m, den)


class Softmax3Pass(MaterialisedAttention):
    """S = QK^T in HBM, 3-pass safe softmax to P in HBM, O = PV."""

    name = "softmax-3pass"
    description = "safe softmax in three passes over a row (seed 000)"

    def softmax_kernel(self, workload: Workload, schedule: Schedule) -> Kernel:
        br = schedule.block_m
        return ThreePassSoftmaxKernel("softmax_3pass", workload, schedule, {"S": br, "P": br})
