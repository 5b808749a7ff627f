"""Attention with S in HBM and the online softmax: two passes over each row (seed 000).

Kernels 1 and 3 are :mod:`algorithms.materialised`'s. Kernel 2 has one CTA per
Br-row block and reads S in Bc-wide chunks twice: once updating the running
``m`` and ``l`` together (``l <- l·exp(m - m_new) + sum exp(S - m_new)``), once
writing ``P = exp(S - m) / l``.

Global traffic per (batch, head), as :mod:`algorithms.softmax_3pass` except
kernel 2: read ``S`` ``2·Nq·Nk·e``; write ``P`` ``Nq·Nk·e``. Exponentials:
``2·Nq·Nk`` plus one rescale factor per row and chunk, the price of one pass
fewer over HBM.
"""

from __future__ import annotations

import math

from algorithms.base import Kernel
from algorithms.materialised import MaterialisedAttention, RowSoftmaxKernel, write_normalised
from algorithms.tile_machine import TileMachine
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class OnlineSoftmaxKernel(RowSoftmaxKernel):
    """Kernel 2: one pass for ``m`` and ``l`` together, one normalise-and-write pass."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        s = self.schedule
        br = s.block_m
        load = self.chunk_loader(tm, bh, block)
        m = tm.full(br, None, -math.inf)
        den = tm.full(br, None, 0.0)
        for j in self.walk(tm, block):
            with tm.step():
                t = load(j)
                m_new = tm.maximum(m, tm.row_max(t))
                rescaled = tm.scale_rows(den, tm.exp_diff(m, m_new))
                den = tm.add(rescaled, tm.row_sum(tm.exp_sub_rows(t, m_new)))
                m = m_new
        write_normalised(tm, load, self.walk(tm, block), bh, block * br, s.block_n, m, den)


class SoftmaxOnline(MaterialisedAttention):
    """S = QK^T in HBM, online (2-pass) softmax to P in HBM, O = PV."""

    name = "softmax-online"
    description = "online softmax, two passes (seed 000)"

    def softmax_kernel(self, workload: Workload, schedule: Schedule) -> Kernel:
        br = schedule.block_m
        return OnlineSoftmaxKernel("softmax_online", workload, schedule, {"S": br, "P": br})
