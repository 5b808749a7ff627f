"""Standard attention's backward pass: the gradients through S and P materialised in HBM.

The forward (:mod:`algorithms.standard`) leaves ``P`` in HBM, as an autograd framework keeps
the softmax's output for its backward. Five kernels, each a GEMM or a row pass as a
framework's math backend runs them (PyTorch's ``_softmax_backward_data`` for the third):

1. ``bwd_dv``: ``dV = P^T dO``, a CTA per (batch, K/V head, block of ``Bc`` keys) walking the
   query blocks that see the keys (and, with grouped K/V heads, the group's query heads):
   reads ``P`` and ``dO`` tiles, accumulates on chip, writes ``dV``;
2. ``bwd_dp``: ``dP = dO V^T`` for the visible tiles, a CTA per (batch, head, Br rows), as
   the forward's scores kernel (``dP`` in the storage type);
3. ``bwd_ds``: ``dS = P * (dP - rowsum(P * dP))``, one CTA per query row keeping the row's
   ``P`` and ``dP`` on chip (each read once from HBM), as the forward's row softmax;
4. ``bwd_dq``: ``dQ = dS K / sqrt(d)``, a CTA per (batch, head, Br rows), as the forward's
   ``P V`` kernel;
5. ``bwd_dk``: ``dK = dS^T Q / sqrt(d)``, as ``bwd_dv``.

Under a causal mask the tiles above the diagonal are never read or written (the forward
never wrote them); inside the diagonal tiles ``P`` is 0 where masked, so ``dS`` is too.
Global traffic per (batch, head), without a mask, ``e`` bytes per element, ``Tr = ceil(Nq/
Br)``, ``Tc = ceil(Nk/Bc)``: ``P`` read three times (``3·Nq·Nk·e``), ``dP`` written and read
once, ``dS`` written once and read twice; ``dO`` and ``Q`` read ``Tc`` times, ``K`` and
``V`` ``Tr`` times (tile re-reads that the L2 mostly serves).
"""

from __future__ import annotations

import math

from algorithms.base import Kernel, OnChip, ceil_div
from algorithms.materialised import RowBlockKernel
from algorithms.register_estimate import FP32, gemm_regs
from algorithms.tile_machine import TileMachine
from algorithms.tiling import first_q_block, q_blocks, visible_kv_blocks
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _key_runs(w: Workload, n: int, bc: int, tm: TileMachine) -> tuple:
    """Key tiles ``0 .. n - 1`` as a compressible run and the ragged last tile (fewer bytes)."""
    full = max(0, n - 1) if w.seq_len_k % bc else n
    return tm.repeat(range(full)), range(full, n)


class KeyBlockGemmKernel(Kernel):
    """``out_j = scale · sum_i A_ij^T B_i`` for K/V block ``j``: a CTA per (batch, K/V head,
    key block) over the query blocks that see it and the group's query heads (``bwd_dv``:
    A = P, B = dO; ``bwd_dk``: A = dS, B = Q, scaled)."""

    #: (A, B, output, scale by 1/sqrt(d))
    operands: tuple[str, str, str, bool] = ("P", "dO", "dV", False)

    @property
    def grid_batch_heads(self) -> int:
        return self.workload.batch_heads_kv

    def kv_group(self) -> int:
        return 1

    def tensor_bh(self, tensor: str, bh: int) -> int:
        # The query-row tensors at the group's first query head (b·H + g·G = bh·G).
        return bh if tensor == self.operands[2] else bh * self.workload.group_size

    def bh_scale(self) -> dict[str, int]:
        g = self.workload.group_size
        return dict.fromkeys(self.operands[:2], g) if g > 1 else {}

    def blocks_per_bh(self) -> int:
        return ceil_div(self.workload.seq_len_k, self.schedule.block_n)

    def block_class(self, block: int):
        w, bc = self.workload, self.schedule.block_n
        return block if w.causal else (block * bc + bc > w.seq_len_k,)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        a_name, b_name, out, scaled = self.operands
        br, bc = s.block_m, s.block_n
        k0 = block * bc
        first = self.tensor_bh(a_name, bh)
        acc = tm.full(bc, w.head_dim, 0.0)
        start, end = first_q_block(w, br, k0), q_blocks(w, br)
        full = end - 1 if w.seq_len_q % br else end  # the ragged query block (fewer bytes) last
        for h in range(first, first + w.group_size):
            for run in (tm.repeat(range(start, max(start, full))), range(max(start, full), end)):
                for i in run:
                    with tm.step():
                        a = tm.load(a_name, h, i * br, br, k0, bc)
                        b = tm.load(b_name, h, i * br, br)
                        acc = tm.matmul_acc(acc, a, b, transpose_a=True)
        tm.store(out, bh, k0, tm.scale(acc, 1.0 / math.sqrt(w.head_dim)) if scaled else acc)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e = w.elem_bytes
        bufs = {
            self.operands[0]: s.stages * s.block_m * s.block_n * e,
            self.operands[1]: s.stages * s.block_m * w.head_dim * e,
        }
        return OnChip(bufs, 32 * s.warps, gemm_regs(s, s.block_n, w.head_dim))


class DVKernel(KeyBlockGemmKernel):
    """Kernel 1: ``dV = P^T dO``."""

    operands = ("P", "dO", "dV", False)


class DKKernel(KeyBlockGemmKernel):
    """Kernel 5: ``dK = dS^T Q / sqrt(d)``."""

    operands = ("dS", "Q", "dK", True)


class DPKernel(RowBlockKernel):
    """Kernel 2: ``dP = dO V^T`` for the visible tiles of one row stripe."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        s = self.schedule
        br, bc = s.block_m, s.block_n
        q0 = block * br
        do = tm.load("dO", bh, q0, br)
        for run in _key_runs(self.workload, self.visits(block), bc, tm):
            for j in run:
                with tm.step():
                    v = tm.load("V", self.tensor_bh("V", bh), j * bc, bc)
                    tm.store("dP", bh, q0, tm.matmul(do, v, transpose_b=True), j * bc)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d = w.elem_bytes, w.head_dim
        bufs = {"dO": s.block_m * d * e, "V": s.stages * s.block_n * d * e}
        return OnChip(bufs, self.threads(), gemm_regs(s, s.block_m, s.block_n))


class DSRowKernel(Kernel):
    """Kernel 3: one CTA per query row: ``dS = P * (dP - rowsum(P * dP))``."""

    def blocks_per_bh(self) -> int:
        return self.workload.seq_len_q

    def block_class(self, block: int):
        s = self.schedule
        q0 = block // s.block_m * s.block_m
        return (visible_kv_blocks(self.workload, q0, s.block_m, s.block_n),)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        bc = s.block_n
        n = visible_kv_blocks(w, block // s.block_m * s.block_m, s.block_m, bc)
        chunks = []  # the row's P and dP chunks, kept on chip: HBM is read once
        total = tm.full(1, None, 0.0)
        for j in range(n):
            with tm.step():
                p = tm.load("P", bh, block, 1, j * bc, bc)
                dp = tm.load("dP", bh, block, 1, j * bc, bc)
                chunks.append((p, dp))
                total = tm.add(total, tm.row_sum(tm.mul(p, dp)))
        for j, (p, dp) in enumerate(chunks):
            tm.store("dS", bh, block, tm.mul(p, tm.sub_rows(dp, total)), j * bc)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        row_bytes = 2 * ceil_div(w.seq_len_k, s.block_n) * s.block_n * FP32
        return OnChip({"P_dP_row": row_bytes}, 32 * s.warps, gemm_regs(s, 1, s.block_n))


class DQKernel(RowBlockKernel):
    """Kernel 4: ``dQ = dS K / sqrt(d)`` for one row stripe, accumulated on chip."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        br, bc = s.block_m, s.block_n
        q0 = block * br
        acc = tm.full(br, w.head_dim, 0.0)
        for run in _key_runs(w, self.visits(block), bc, tm):
            for j in run:
                with tm.step():
                    ds = tm.load("dS", bh, q0, br, j * bc, bc)
                    k = tm.load("K", self.tensor_bh("K", bh), j * bc, bc)
                    acc = tm.matmul_acc(acc, ds, k)
        tm.store("dQ", bh, q0, tm.scale(acc, 1.0 / math.sqrt(w.head_dim)))

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d = w.elem_bytes, w.head_dim
        bufs = {"dS": s.stages * s.block_m * s.block_n * e, "K": s.stages * s.block_n * d * e}
        return OnChip(bufs, self.threads(), gemm_regs(s, s.block_m, d))


def standard_backward_kernels(w: Workload, s: Schedule) -> list[Kernel]:
    """Standard attention's backward kernels, in launch order."""
    br, bc = s.block_m, s.block_n
    key_rows = {"dV": bc, "dK": bc}
    return [
        DVKernel("bwd_dv", w, s, key_rows),
        DPKernel("bwd_dp", w, s, {"dO": br, "dP": br}),
        DSRowKernel("bwd_ds", w, s, {"P": 1, "dP": 1, "dS": 1}),
        DQKernel("bwd_dq", w, s, {"dS": br, "dQ": br}),
        DKKernel("bwd_dk", w, s, key_rows),
    ]
