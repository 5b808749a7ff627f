"""What the engine takes from a hardware profile: per-SM pipe rates, bandwidths, latencies.

Pipes of one SM (shared by its co-resident CTAs, processor sharing):

- ``tensor``: matrix-multiply FLOPs at the ``mma.sync`` rate of the storage type
  (fp16/bf16). The engine models ``mma.sync`` (the instruction class of the
  project's CUDA kernel and of FlashAttention-2), not Hopper's ``wgmma``.
- ``fp32``: FP32 lane-instructions (max, add, mul, compare, FFMA) at half the
  profile's FP32 FLOP rate (an FFMA is two FLOPs and one instruction). With
  fp32 storage the matrix products run on this pipe too (SIMT FFMA, one per
  multiply-add) rather than on TF32 tensor cores: the seeds' fp32 kernels are
  plain FMA loops.
- ``sfu``: exponentials (MUFU.EX2 results).
- ``smem``: shared-memory bytes read and written by the warps.

A step's compute takes as long as its busiest pipe (the pipes run in
parallel), then its barriers: each costs the CTA :func:`barrier_cycles` SM
cycles (of its own time, not of the pipes', so co-resident CTAs fill the gap).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpusim.engine.clock import per_tick, ticks
from gpusim.profiles.schema import HardwareProfile

PIPES = ("tensor", "fp32", "sfu", "smem")

#: Cost of one ``__syncthreads()``: ``BASE + PER_WARP x warps`` SM cycles. Measured on the
#: project's H200 (benchmarks/barrier_cost.py, benchmarks/barrier_cost_h200.json, 2026-11-30):
#: 10.2, 12.1, 16.2, 24.1 and 39.5 cycles for 1, 2, 4, 8 and 16 warps per CTA.
BARRIER_BASE_CYCLES = 8.0
BARRIER_CYCLES_PER_WARP = 2.0


def barrier_cycles(warps: int) -> float:
    """SM cycles one barrier costs a CTA of ``warps`` warps (the H200 fit above)."""
    return BARRIER_BASE_CYCLES + BARRIER_CYCLES_PER_WARP * warps


@dataclass(frozen=True)
class Rates:
    """Per-SM pipe rates and shared-memory-system figures of one profile for one dtype."""

    sm_count: int
    clock_hz: float
    mma_pipe: str  # "tensor" (fp16/bf16) or "fp32" (fp32 storage: SIMT FFMA)
    pipe_per_s: dict[str, float]  # work units per second per SM
    pipe_per_tick: dict[str, float]
    dram_bytes_per_s: float
    l2_bytes_per_s: float
    dram_latency_ticks: int
    l2_latency_ticks: int
    barrier_ticks: int
    launch_ticks: int
    l2_bytes: int

    def work(self, mma_flops: float, fp32_ops: float, exp_ops: float, smem_bytes: float):
        """The work of a step on each pipe, in that pipe's units, as ``{pipe: amount}``."""
        out = {"tensor": 0.0, "fp32": float(fp32_ops), "sfu": float(exp_ops)}
        out["smem"] = float(smem_bytes)
        if self.mma_pipe == "tensor":
            out["tensor"] = float(mma_flops)
        else:
            out["fp32"] += mma_flops / 2  # one FFMA per multiply-add
        return out

    def peak_per_s(self, pipe: str) -> float:
        """Whole-GPU rate of ``pipe`` per second."""
        return self.pipe_per_s[pipe] * self.sm_count


def rates_for(profile: HardwareProfile, dtype: str, warps: int = 4) -> Rates:
    """The engine's rates for ``profile``, storage type ``dtype``, ``warps`` warps per CTA."""
    clk = profile.sm_clock_hz.value
    if dtype in ("fp16", "bf16"):
        mma_pipe = "tensor"
        tensor_per_clk = getattr(profile.mma_sync_flops_per_clk_per_sm, dtype).value
    else:
        mma_pipe = "fp32"
        tensor_per_clk = profile.mma_sync_flops_per_clk_per_sm.fp16.value  # unused by fp32 runs
    per_s = {
        "tensor": tensor_per_clk * clk,
        "fp32": profile.fp32_flops_per_clk_per_sm.value / 2 * clk,
        "sfu": profile.sfu_exp_per_clk_per_sm.value * clk,
        "smem": profile.smem_bandwidth_bytes_per_clk_per_sm.value * clk,
    }
    return Rates(
        sm_count=profile.sm_count.value,
        clock_hz=clk,
        mma_pipe=mma_pipe,
        pipe_per_s=per_s,
        pipe_per_tick={k: per_tick(v) for k, v in per_s.items()},
        dram_bytes_per_s=profile.dram_bandwidth_bytes_per_s.value,
        l2_bytes_per_s=profile.l2_bandwidth_bytes_per_s.value,
        dram_latency_ticks=ticks(profile.dram_latency_s.value),
        l2_latency_ticks=ticks(profile.l2_latency_s.value),
        barrier_ticks=ticks(barrier_cycles(warps) / clk),
        launch_ticks=ticks(profile.kernel_launch_overhead_s.value),
        l2_bytes=profile.l2_bytes.value,
    )
