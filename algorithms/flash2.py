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
"""

from __future__ import annotations

from typing import Literal

from algorithms.base import Algorithm, CompiledKernel, Kernel, OnChip, ceil_div
from algorithms.recurrence import initial_state, scores, unnormalised_update
from algorithms.register_estimate import FP32, register_estimate
from algorithms.tile_machine import TileMachine
from algorithms.tiling import first_masked_tile, needs_mask, visible_kv_blocks
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


__all__ = ["Flash2", "Flash2Kernel", "needs_mask", "register_estimate", "visible_kv_blocks"]


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
        br, bc = s.block_m, s.block_n
        q0 = block * br
        q = tm.load("Q", bh, q0, br)
        state = initial_state(tm, br, w.head_dim)
        n = visible_kv_blocks(w, q0, br, bc)
        first_masked = first_masked_tile(w, q0, bc, n)

        def kv_step(j: int, state):
            k0 = j * bc
            with tm.step():
                k = tm.load("K", bh, k0, bc)
                v = tm.load("V", bh, k0, bc)
                sc = scores(tm, w, q, k, q0, k0, bc)
                state = unnormalised_update(tm, sc, v, *state)
                for _ in range(barriers_per_step(w.dtype, s.stages)):
                    tm.barrier()
            return state

        # The unmasked tiles are alike but for their rows (one compressed step when
        # traced); the diagonal band and the ragged last tile follow one by one.
        for j in tm.repeat(range(first_masked)):
            state = kv_step(j, state)
        for j in range(first_masked, n):
            state = kv_step(j, state)
        _m, den, acc = state
        tm.store("O", bh, q0, tm.div_rows(acc, den))

    def last_blocks_first(self) -> bool:
        # flash2_tc.cu and flash2_simt.cu: m_block = gridDim.x - 1 - blockIdx.x (q_order
        # "last-first"), so that under a causal mask the longest CTAs start first and the
        # grid's tail is short.
        return self.schedule.q_order == "last-first"

    def compiled_kernel(self) -> CompiledKernel | None:
        # Both CUDA kernels split the Q rows over the warps and keep S/P and O in registers;
        # the other schedules of the model have no compiled counterpart.
        w, s = self.workload, self.schedule
        variant = COMPILED_VARIANT.get(w.dtype)
        if variant is None or (s.warp_split, s.residency) != ("split-q", "registers"):
            return None
        if s.q_order != "last-first":
            return None  # the CUDA kernels launch the last query blocks first
        args = (w.head_dim, s.block_m, s.block_n, s.warps, s.stages)
        return CompiledKernel(variant, w.dtype, *args)

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
        return OnChip(bufs, 32 * s.warps, register_estimate(w, s))


class Flash2(Algorithm):
    """FlashAttention-2 forward (Q-outer, state on chip)."""

    name = "flash2"
    supports_orders = frozenset({"q_order"})
    description = (
        "tiled, Q-block outer loop (one CTA per Q block), running m/den/O on chip, "
        "one final normalisation (FlashAttention-2; seed 000 flashattnV1_block)"
    )

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        own = {"Q": schedule.block_m, "O": schedule.block_m}
        return [Flash2Kernel("flash2_fwd", workload, schedule, own)]
