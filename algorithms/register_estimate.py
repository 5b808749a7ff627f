"""On-chip footprint helpers: register estimates shared by the kernels' ``on_chip``.

Registers are an estimate (fp32 accumulators spread over the CTA's threads plus
a fixed overhead for addresses, loop counters and the row statistics), capped
at the ISA's 255 per thread; :func:`gpusim.tuning.rules.default_schedule`
treats reaching the cap as "this tile would spill".
"""

from __future__ import annotations

from contextvars import ContextVar

from algorithms.base import ceil_div
from gpusim.schedule import Schedule
from gpusim.workload import Workload

MAX_REGS_PER_THREAD = 255
#: Bytes of an fp32 value: accumulators, row statistics and HBM state are fp32.
FP32 = 4
#: Registers every thread needs besides its accumulators (addresses, indices, m, l).
BASE_REGS = 40
#: The seed 001 picture: everything in shared memory, threads hold only scalars.
SMEM_RESIDENCY_REGS = 64


def accumulator_regs(fp32_elems_per_cta: int, threads: int) -> int:
    """Registers per thread for ``fp32_elems_per_cta`` accumulators spread over ``threads``."""
    return min(MAX_REGS_PER_THREAD, ceil_div(fp32_elems_per_cta, threads) + BASE_REGS)


def register_estimate(w: Workload, s: Schedule) -> int:
    """Registers per thread of a fused attention CTA (S tile and O accumulator in registers)."""
    threads = 32 * s.warps
    if s.residency == "smem":
        return SMEM_RESIDENCY_REGS
    if s.mma == "wgmma":
        return wgmma_regs(w, s)
    if s.warp_split == "split-k":
        # Every warp holds the whole O tile (partial sums over its keys) and its slice of S.
        acc = s.block_m * w.head_dim // 32 + s.block_m * max(1, s.block_n // s.warps) // 32
        return min(MAX_REGS_PER_THREAD, acc + BASE_REGS)
    return accumulator_regs(s.block_m * w.head_dim + s.block_m * s.block_n, threads)


def gemm_regs(s: Schedule, acc_rows: int, acc_cols: int) -> int:
    """Registers per thread of a tiled GEMM CTA with an ``acc_rows x acc_cols`` accumulator."""
    if s.residency == "smem":
        return SMEM_RESIDENCY_REGS
    return accumulator_regs(acc_rows * acc_cols, 32 * s.warps)


#: Registers a wgmma kernel's producer warps keep after ``setmaxnreg.dec`` gives theirs to
#: the consumers: 24, the instruction's floor, which FlashAttention-3's producer warpgroup and
#: the project's flash3_wgmma.cu both ask for with two consumer warpgroups (the producer
#: holds only addresses and the stage ring). 40 refused a kernel that compiles and runs
#: (d128 Bc176: 236 consumer registers fit only beside a 24-register producer).
WGMMA_PRODUCER_REGS = 24


#: A CTA with one consumer warpgroup keeps the consumers' registers in every thread, the
#: producer's too, as flash3_wgmma.cu does (it calls setmaxnreg only with two or more consumer
#: warpgroups; ptxas gives its one-warpgroup instances 162-253 registers a thread, one CTA an
#: SM, where the producer hand-over gives two). Suggested by wgmma decode set 1, adopted by
#: decode set 2's rule on an H100 (reports/kernels/wgmma/decode_set2: MAPE 20.0 -> 19.2 %);
#: off, the estimate is as it was before (the sets recompute their variants with it).
ONE_WARPGROUP_KEEPS_REGISTERS: ContextVar[bool] = ContextVar(
    "one_warpgroup_keeps_registers", default=True
)


def wgmma_regs(w: Workload, s: Schedule) -> int:
    """Mean registers per thread of a wgmma CTA: each consumer thread holds its warpgroup's
    S and O accumulators (fp32) and P packed two bf16/fp16 to a register, plus the base; the
    producer warps :data:`WGMMA_PRODUCER_REGS`. A consumer share over 255 spills: the mean
    is then given as 255, which the tuner rejects as a spill."""
    consumers = 32 * s.warps
    acc = s.block_m * (w.head_dim + s.block_n) + s.block_m * s.block_n // 2
    per_consumer = ceil_div(acc, consumers) + BASE_REGS
    if per_consumer > MAX_REGS_PER_THREAD:
        return MAX_REGS_PER_THREAD
    if consumers <= 128 and ONE_WARPGROUP_KEEPS_REGISTERS.get():
        return per_consumer
    producers = 32 * s.producer_warps
    total = per_consumer * consumers + WGMMA_PRODUCER_REGS * producers
    return ceil_div(total, consumers + producers)
