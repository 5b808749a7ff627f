"""The rates of a Hopper ``wgmma`` kernel: its products at the profile's measured per-N rates,
its pipes at the SM clock measured under wgmma load, its softmax overlapped with the products
by the measured share (the profile's ``wgmma_*`` fields, from ``python -m
gpusim.calibrate.wgmma`` and ``gpusim.calibrate.wgmma_burst``)."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from gpusim.engine.clock import per_tick, ticks
from gpusim.engine.rates import Rates
from gpusim.errors import GpusimError
from gpusim.kernel_class import KernelClass
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule


def wgmma_rate(profile: HardwareProfile, dtype: str, a_src: str, n: int) -> float:
    """FLOP per clock per SM of m64nNk16 products from the profile's measured table: linear
    between the measured N (an N outside wgmma's shapes is an error, never extrapolated)."""
    if n % 8 or not 8 <= n <= 256:
        raise GpusimError(
            f"--mma wgmma: N = {n} breaks wgmma's shape rule (a multiple of 8 from 8 to 256)"
        )
    rows = profile.wgmma_rate_by_n.value[f"{dtype}/{a_src}"]
    for (n0, r0), (n1, r1) in pairwise(rows):
        if n0 <= n <= n1:
            return r0 + (r1 - r0) * (n - n0) / (n1 - n0)
    if n == rows[0][0]:
        return rows[0][1]
    raise GpusimError(
        f"--mma wgmma: N = {n} is outside {profile.name}'s measured wgmma sizes "
        f"({rows[0][0]}-{rows[-1][0]})"
    )


def wgmma_step_rate(profile: HardwareProfile, dtype: str, block_n: int, head_dim: int) -> float:
    """The tensor lane's FLOP per clock per SM for a FlashAttention step's two products of
    equal work: S = Q K^T (A = Q from shared memory, N = Bc) and O += P V (A = P from
    registers, N = d), one after the other: their harmonic mean."""
    qk = wgmma_rate(profile, dtype, "smem", block_n)
    pv = wgmma_rate(profile, dtype, "reg", head_dim)
    return 2.0 / (1.0 / qk + 1.0 / pv)


def wgmma_overlap(profile: HardwareProfile, consumer_warpgroups: int) -> float:
    """The measured share of the softmax (or the products) hidden behind the other: one
    consumer warpgroup overlaps within itself, two also across (ping-pong); 0 where the
    profile has none (the timed path refuses such a profile first: :func:`rates_for`)."""
    field = (
        profile.wgmma_softmax_overlap_same_warpgroup
        if consumer_warpgroups <= 1
        else profile.wgmma_softmax_overlap_two_warpgroups
    )
    return field.value if field is not None else 0.0


def wgmma_kernel_rates(
    base: Rates,
    profile: HardwareProfile,
    dtype: str,
    schedule: Schedule,
    head_dim: int,
    cls: KernelClass,
) -> Rates:
    """A wgmma kernel's rates: the tensor lane at the measured per-N rate of its two products
    (:func:`wgmma_step_rate`), every pipe at the SM clock measured under wgmma load, and the
    step's softmax overlapped with its products by the measured share.

    The clock is that of ms-long wgmma launches after an L2 flush where the profile has it
    (``sm_clock_wgmma_burst_hz``: the regime a benchmark times kernels in, 1.78 GHz on the
    H200), else the sustained one (``sm_clock_wgmma_load_hz``, 1.62 GHz after seconds of
    back-to-back products)."""
    burst = profile.sm_clock_wgmma_burst_hz
    clk = burst.value if burst is not None else profile.sm_clock_wgmma_load_hz.value
    per_clk = {k: v / base.clock_hz for k, v in base.pipe_per_s.items()}
    per_clk["tensor"] = wgmma_step_rate(profile, dtype, schedule.block_n, head_dim)
    per_s = {k: v * clk for k, v in per_clk.items()}
    return replace(
        base,
        clock_hz=clk,
        pipe_per_s=per_s,
        pipe_per_tick={k: per_tick(v) for k, v in per_s.items()},
        barrier_ticks=ticks(base.barrier_cycles / clk),
        tensor_clock_hz=clk,
        phase_overlap=wgmma_overlap(profile, cls.consumer_warpgroups),
    )
