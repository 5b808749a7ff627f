"""FlashAttention-2's backward pass: dQ, dK, dV from Q, K, V, O, the log-sum-exp and dO.

The FlashAttention-2 paper's Algorithm 2, as its code runs it (``flash_bwd_kernel.h``: one
CTA per K/V block, the query blocks walked inside, dQ accumulated with atomic adds), in
three kernels (four with grouped K/V heads):

1. ``flash2_bwd_dot``: a CTA per (batch, head, block of ``Br`` rows): ``Dsum = rowsum(dO *
   O)`` (the softmax's backward needs ``sum_j P_ij dP_ij``, which equals it), and zeros
   for the rows' fp32 dQ accumulator ``dQacc``.
2. ``flash2_bwd``: a CTA per (batch, query head, K/V block ``j`` of ``Bc`` keys). It loads
   ``K_j``, ``V_j`` once, keeps ``dK_j``, ``dV_j`` on chip (fp32), and walks the query
   blocks ``i`` that see block ``j`` (under a causal mask, those from the diagonal on),
   from the last down, as FlashAttention-2 does; each step::

       S = Q_i K_j^T / sqrt(d)            (masked where the tile needs it)
       P = exp(S - LSE_i)                  (the forward's probabilities, recomputed)
       dV_j += P^T dO_i
       dP = dO_i V_j^T
       dS = P * (dP - Dsum_i)
       dK_j += dS^T Q_i
       dQacc_i += dS K_j / sqrt(d)         (atomic adds: CTAs of other K/V blocks add too)

   then writes ``dK_j / sqrt(d)`` and ``dV_j``. With grouped K/V heads each query head's
   CTAs write their own ``dKexp``, ``dVexp`` (as FlashAttention-2's ``mha_bwd`` does with
   ``dk_expanded``), K and V read at the K/V head.
3. ``flash2_bwd_convert``: a CTA per (batch, head, block of ``Br`` rows): ``dQ = dQacc`` in
   the storage type.
4. (grouped K/V heads only) ``flash2_bwd_group_sum``: a CTA per (batch, K/V head, block of
   ``Bc`` keys): ``dK``, ``dV`` = the sums of the group's ``dKexp``, ``dVexp``.

Why ``Dsum`` is the right term: with ``P = softmax(S)`` row-wise, ``dS_ij = P_ij (dP_ij -
sum_k P_ik dP_ik)`` and ``sum_k P_ik dP_ik = sum_k P_ik (dO_i . V_k) = dO_i . O_i``.
Rows a tile does not have (past ``Nq``) load as zeros with ``Dsum`` 0 and contribute
nothing; a row that sees no key has ``LSE = -inf`` and every score masked, so ``P = 0``.

Global traffic per (batch, head), ``e`` bytes per element, ``Tc = ceil(Nk/Bc)``, without a
mask: the main kernel reads ``K``, ``V`` once (``2·Nk·d·e``), ``Q`` and ``dO`` once per K/V
block (``2·Tc·Nq·d·e``, shared in the L2 by the CTAs of the head walking together), ``LSE``
and ``Dsum`` as often (``2·Tc·Nq·4``), adds ``Tc·Nq·d·4`` bytes into ``dQacc`` and writes
``dK``, ``dV`` (``2·Nk·d·e``).

The schedule's ``block_m`` (Br) is the query rows of a step, ``block_n`` (Bc) the keys a CTA
owns (FlashAttention-2's ``kBlockM`` and ``kBlockN``); ``stages`` >= 2 double-buffers the
``Q`` and ``dO`` tiles. The products' warps tile each product's output in a grid
(:meth:`~algorithms.base.Kernel.products_in_warp_grid`); ``P`` and ``dS`` pass through
shared memory (the transposed products need them in another layout).
"""

from __future__ import annotations

import math

from algorithms.base import Kernel, OnChip, ceil_div
from algorithms.recurrence import scores
from algorithms.register_estimate import FP32, accumulator_regs
from algorithms.tile_machine import TileMachine
from algorithms.tiling import first_q_block, needs_mask, q_blocks
from gpusim.errors import GpusimError
from gpusim.instruction_mix import bwd_barriers_per_step
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def q_walk(w: Workload, s: Schedule, k0: int) -> tuple[range, range]:
    """The query blocks that see K/V block ``k0``, from the last down, as the unmasked run
    and the masked run (both in the walk's order). A tile needs the mask when its keys
    run past the end or cross the diagonal; along the query blocks that is a prefix
    (the blocks before the diagonal's end), so a bisection finds where it stops."""
    br, bc = s.block_m, s.block_n
    lo, hi = first_q_block(w, br, k0), q_blocks(w, br)
    if lo >= hi:
        return range(0), range(0)
    a, b = lo, hi  # the first block in [lo, hi) that needs no mask (hi: none)
    while a < b:
        mid = (a + b) // 2
        if needs_mask(w, mid * br, k0, bc):
            a = mid + 1
        else:
            b = mid
    return range(hi - 1, a - 1, -1), range(a - 1, lo - 1, -1)


class _QueryRowsKernel(Kernel):
    """A CTA per (batch, head, block of ``Br`` query rows); the last block may be ragged."""

    def blocks_per_bh(self) -> int:
        return q_blocks(self.workload, self.schedule.block_m)

    def block_class(self, block: int):
        br = self.schedule.block_m
        return (block * br + br > self.workload.seq_len_q,)


class BwdDotKernel(_QueryRowsKernel):
    """Kernel 1: ``Dsum = rowsum(dO * O)`` and a zeroed ``dQacc`` for ``Br`` rows."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, br = self.workload, self.schedule.block_m
        r0 = block * br
        do = tm.load("dO", bh, r0, br)
        o = tm.load("O", bh, r0, br)
        tm.store("Dsum", bh, r0, tm.row_sum(tm.mul(do, o)))
        tm.store("dQacc", bh, r0, tm.full(br, w.head_dim, 0.0))

    def on_chip(self) -> OnChip:
        # Straight from global memory into registers and back (the tracer, whose loads land
        # in shared memory, charges them as fills).
        w, s = self.workload, self.schedule
        threads = 32 * s.warps
        return OnChip({}, threads, accumulator_regs(2 * s.block_m * w.head_dim, threads))


class BwdKernel(Kernel):
    """Kernel 2: a CTA per (grid batch-head, K/V block): dK, dV on chip, dQ by atomic adds."""

    def blocks_per_bh(self) -> int:
        return ceil_div(self.workload.seq_len_k, self.schedule.block_n)

    def block_class(self, block: int):
        w, bc = self.workload, self.schedule.block_n
        if w.causal:
            return block
        return (block * bc + bc > w.seq_len_k,)

    def products_in_warp_grid(self) -> bool:
        return True

    def backward_step(self) -> bool:
        return True

    def adds_atomically(self) -> bool:
        return True

    def barriers_per_step(self) -> int:
        return bwd_barriers_per_step(self.schedule.stages)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        bc, d = s.block_n, w.head_dim
        k0 = block * bc
        kv = self.tensor_bh("K", bh)
        k = tm.load("K", kv, k0, bc)
        v = tm.load("V", kv, k0, bc)
        dk, dv = tm.full(bc, d, 0.0), tm.full(bc, d, 0.0)
        unmasked, masked = q_walk(w, s, k0)
        scale = 1.0 / math.sqrt(d)
        for run in (tm.repeat(unmasked), masked):
            for i in run:
                q0 = i * s.block_m
                with tm.step():
                    q = tm.load("Q", bh, q0, s.block_m)
                    do = tm.load("dO", bh, q0, s.block_m)
                    lse = tm.load("LSE", bh, q0, s.block_m)
                    dsum = tm.load("Dsum", bh, q0, s.block_m)
                    p = tm.exp_sub_rows(scores(tm, w, q, k, q0, k0, bc), lse)
                    dv = tm.matmul_acc(dv, p, do, transpose_a=True)
                    dp = tm.matmul(do, v, transpose_b=True)
                    ds = tm.mul(p, tm.sub_rows(dp, dsum))
                    dk = tm.matmul_acc(dk, ds, q, transpose_a=True)
                    tm.store_add("dQacc", bh, q0, tm.matmul(ds, k, scale=scale))
                    for _ in range(self.barriers_per_step()):
                        tm.barrier()
        grouped = w.group_size > 1
        tm.store("dKexp" if grouped else "dK", bh if grouped else kv, k0, tm.scale(dk, scale))
        tm.store("dVexp" if grouped else "dV", bh if grouped else kv, k0, dv)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d, br, bc = w.elem_bytes, w.head_dim, s.block_m, s.block_n
        bufs = {
            "K": bc * d * e,
            "V": bc * d * e,
            "Q": s.stages * br * d * e,
            "dO": s.stages * br * d * e,
            "LSE_Dsum": s.stages * 2 * br * FP32,
            "P_dS": 2 * br * bc * e,  # staged for the transposed products
        }
        threads = 32 * s.warps
        # dK and dV accumulators, and the S/P and dP/dS tiles (dQ's block reuses S's).
        acc = 2 * bc * d + 2 * br * bc
        return OnChip(bufs, threads, accumulator_regs(acc, threads))


class BwdConvertKernel(_QueryRowsKernel):
    """Kernel 3: ``dQ`` in the storage type from the fp32 accumulator."""

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        br = self.schedule.block_m
        r0 = block * br
        tm.store("dQ", bh, r0, tm.load("dQacc", bh, r0, br))

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        threads = 32 * s.warps
        return OnChip({}, threads, accumulator_regs(s.block_m * w.head_dim, threads))


class GroupSumKernel(Kernel):
    """Kernel 4 (grouped K/V heads): ``dK``, ``dV`` summed over each group's query heads."""

    @property
    def grid_batch_heads(self) -> int:
        return self.workload.batch_heads_kv

    def kv_group(self) -> int:
        return 1

    def blocks_per_bh(self) -> int:
        return ceil_div(self.workload.seq_len_k, self.schedule.block_n)

    def block_class(self, block: int):
        bc = self.schedule.block_n
        return (block * bc + bc > self.workload.seq_len_k,)

    def tensor_bh(self, tensor: str, bh: int) -> int:
        # The group's first query head (b·H + g·G = bh·G) for the per-head partial sums.
        return bh * self.workload.group_size if tensor in ("dKexp", "dVexp") else bh

    def bh_scale(self) -> dict[str, int]:
        return dict.fromkeys(("dKexp", "dVexp"), self.workload.group_size)

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, bc = self.workload, self.schedule.block_n
        k0 = block * bc
        first = self.tensor_bh("dKexp", bh)
        for name in ("K", "V"):
            total = tm.full(bc, w.head_dim, 0.0)
            for h in range(first, first + w.group_size):
                with tm.step():
                    total = tm.add(total, tm.load(f"d{name}exp", h, k0, bc))
            tm.store(f"d{name}", bh, k0, total)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        threads = 32 * s.warps
        return OnChip({}, threads, accumulator_regs(2 * s.block_n * w.head_dim, threads))


def check_backward(w: Workload, s: Schedule) -> None:
    """Refuse, in one line, what the backward kernels do not implement."""
    if s.kv_splits != 1 or s.pack_gqa or s.kv_order != "forward" or s.q_order != "last-first":
        raise GpusimError(
            f"--pass {w.pass_}: flash2's backward walks the query blocks of each K/V block "
            f"itself; --kv-splits, --pack-gqa, --kv-order and --q-order are forward options"
        )
    if s.residency != "registers" or s.warp_split != "split-q":
        raise GpusimError(
            f"--pass {w.pass_}: flash2's backward keeps dK, dV and S/dP in registers with the "
            f"products' warps in a grid (residency registers, warp split split-q)"
        )
    if s.mma not in (None, "mma") or s.producer_warps or s.tile_copy not in (None, "cp.async"):
        raise GpusimError(
            f"--pass {w.pass_}: flash2's backward is described for mma.sync products fed by "
            f"cp.async copies (FlashAttention-2's kernel); not --mma {s.mma}, --tile-copy "
            f"{s.tile_copy}, --producer-warps {s.producer_warps}"
        )
    if s.instruction_counts == "sass-fit":
        raise GpusimError(
            f"--pass {w.pass_}: --instruction-counts sass-fit is a fit to the compiled forward "
            f"loops; the backward's step has compiled (the default) or the formulas"
        )


def backward_kernels(w: Workload, s: Schedule) -> list[Kernel]:
    """The backward pass's kernels, in launch order."""
    q_rows = {"dO": s.block_m, "O": s.block_m, "Dsum": s.block_m, "dQacc": s.block_m}
    out: list[Kernel] = [
        BwdDotKernel("flash2_bwd_dot", w, s, q_rows),
        BwdKernel(
            "flash2_bwd", w, s, {t: s.block_n for t in ("K", "V", "dK", "dV", "dKexp", "dVexp")}
        ),
        BwdConvertKernel("flash2_bwd_convert", w, s, {"dQacc": s.block_m, "dQ": s.block_m}),
    ]
    if w.group_size > 1:
        rows = {t: s.block_n for t in ("dKexp", "dVexp", "dK", "dV")}
        out.append(GroupSumKernel("flash2_bwd_group_sum", w, s, rows))
    return out
