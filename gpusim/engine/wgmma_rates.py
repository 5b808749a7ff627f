"""The rates of a Hopper ``wgmma`` kernel: its products at the profile's measured per-N rates,
its pipes at the SM clock measured under wgmma load, its softmax overlapped with the products
by the measured share (the profile's ``wgmma_*`` fields, from ``python -m
gpusim.calibrate.wgmma`` and ``gpusim.calibrate.wgmma_burst``); or, with two or three consumer
warpgroups on a profile with the softmax's measured cycles per instruction
(``gpusim.calibrate.wgmma_pingpong``), the products at the paired rate and each step at the
ping-pong bound (:func:`pingpong_rates`)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING

from gpusim.engine.clock import TICKS_PER_S, per_tick, ticks
from gpusim.engine.rates import Rates
from gpusim.errors import GpusimError
from gpusim.kernel_class import KernelClass
from gpusim.profiles.schema import HardwareProfile, SourcedRateTable
from gpusim.schedule import Schedule

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from algorithms.base import Kernel
    from algorithms.program import Step


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
    if pingpong_cpi(profile, cls.consumer_warpgroups) is not None:
        # Two products issued together reach the one-CTA peak at every N (wgmma_step's
        # products-only rows); the step's shape comes from pingpong_rates.
        per_clk["tensor"] = getattr(profile.wgmma_flops_per_clk_per_sm, dtype).value
    else:
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


#: A one-consumer-warpgroup step at the ping-pong bound with n = 1, max(T, softmax phase,
#: T + I x c), c the profile's ``wgmma_softmax_cycles_per_instr_1_warpgroups`` (one warpgroup
#: alone on its SM, gpusim.calibrate.wgmma_step_one). Suggested by wgmma decode set 2's look,
#: adopted by decode set 3's rule on an H100 (reports/kernels/wgmma/decode_set3: MAPE 18.5 ->
#: 10.6 %). False: the overlap share's step, as before (earlier sets recompute with it).
ONE_WARPGROUP_STEP: ContextVar[bool] = ContextVar("one_warpgroup_step", default=True)

#: A one-warpgroup kernel at a tile gpusim.calibrate.wgmma_step_one measured takes that tile's
#: own c (the profile's ``wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile``), not the mean
#: over the tiles. Suggested by decode sets 1-3 recomputed, adopted by decode set 4's rule on
#: an H100 (reports/kernels/wgmma/decode_set4: MAPE 8.86 -> 6.01 %). False: the mean (earlier
#: sets recompute with it).
ONE_WARPGROUP_TILES: ContextVar[bool] = ContextVar("one_warpgroup_tiles", default=True)

#: Warps of a consumer warpgroup (one on each of the SM's four schedulers).
WARPS_PER_WARPGROUP = 4


def pingpong_cpi(
    profile: HardwareProfile,
    consumer_warpgroups: int,
    block_n: int | None = None,
    head_dim: int | None = None,
) -> float | None:
    """The measured cycles per instruction of one consumer warp's softmax stream with this
    many consumer warpgroups (gpusim.calibrate.wgmma_pingpong); None where the profile has none
    (the step is then the overlap share's: :func:`wgmma_overlap`); one warpgroup's only with
    :data:`ONE_WARPGROUP_STEP` on.
    Where the profile's ``wgmma_softmax_cycles_per_instr_by_block_n`` has a row at this tile
    (warpgroups, ``head_dim``, ``block_n``: wgmma_step's rows off its paired shapes), that
    row's c (one warpgroup: ``..._1_warpgroups_by_tile``'s, :data:`ONE_WARPGROUP_TILES`);
    else the field of the warpgroup count."""
    if consumer_warpgroups < 1 or (consumer_warpgroups == 1 and not ONE_WARPGROUP_STEP.get()):
        return None
    field = getattr(
        profile, f"wgmma_softmax_cycles_per_instr_{consumer_warpgroups}_warpgroups", None
    )
    if field is None:
        return None
    own = profile.wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile
    if consumer_warpgroups == 1 and ONE_WARPGROUP_TILES.get():
        c = _tile_c(own, str(head_dim), block_n)
        if c is not None:
            return c
    c = _tile_c(
        profile.wgmma_softmax_cycles_per_instr_by_block_n,
        f"{consumer_warpgroups}/{head_dim}",
        block_n,
    )
    return field.value if c is None else c


def _tile_c(table: SourcedRateTable | None, key: str, block_n: int | None) -> float | None:
    """A per-tile table's c at ``key`` and ``block_n``, or None where it has no such row."""
    if table is None or block_n is None:
        return None
    return next((float(c) for bc, c in table.value.get(key, []) if bc == block_n), None)


def pingpong_rates(
    rates: Rates, profile: HardwareProfile, kernel: Kernel, steady: Callable[[], Step]
) -> tuple[Rates, str] | None:
    """A wgmma kernel's rates with its steps at the ping-pong bound of n >= 2 consumer
    warpgroups: one warpgroup's softmax runs while the others' products hold the tensor
    cores, so a step takes max(T, A, T / n + I x c), T its products at the paired rate, A its
    softmax phase at the SM's full rates, I one consumer warp's instructions (the step's
    issue over its consumer warps) and c the profile's cycles per instruction of that lone
    stream. The engine's two phases are kept: the share of the softmax phase that runs
    beside the products (``phase_overlap``) is what leaves the step at the bound, and where
    the bound is longer than both phases end to end the schedulers are held for the rest
    (``sched_scale``). None where the profile has no such cycles (one warpgroup, or no
    field, or another class); ``steady`` gives the kernel's steady step. The note names the
    mechanism for the kernel's ``timing_source``."""
    from gpusim.engine.plan import step_work
    from gpusim.kernel_class import resolve_class

    cls = resolve_class(kernel.schedule, kernel.workload.dtype)
    n = cls.consumer_warpgroups
    tile = (kernel.schedule.block_n, kernel.workload.head_dim)
    cpi = pingpong_cpi(profile, n, *tile) if cls.product == "wgmma" else None
    if cpi is None:
        return None
    lone = LONE_STREAM_ISSUE.get()
    flat = replace(rates, phase_overlap=0.0)
    if lone:
        flat = lone_stream_issue(flat, n, cpi)
    work = step_work(steady(), flat)
    parts = [max(v / flat.pipe_per_tick[p] for p, v in part.items()) for part in
             flat.serial_parts(work)]  # fmt: skip
    if len(parts) != 2:
        return None
    a, b = parts
    instrs = work["issue"] / (n * WARPS_PER_WARPGROUP)
    softmax = instrs * cpi / rates.clock_hz * TICKS_PER_S
    # With the lone-stream issue lane b is at least the softmax term, so the bound is never
    # longer than the two phases end to end: the overlap share alone leaves the step there.
    bound = max(a, b, a / n + softmax)
    hidden = a + b - bound
    overlap = min(1.0, hidden / min(a, b)) if hidden > 0 else 0.0
    scale = bound / (a + b) if hidden < 0 else 1.0
    note = (
        f"wgmma ping-pong bound: {n} consumer warpgroups, max(products, softmax phase, "
        f"products / {n} + {instrs:.0f} instructions x {cpi:.2f} cycles) a step"
    )
    if lone:
        note += (
            f"; the issue lane at {n * WARPS_PER_WARPGROUP / cpi:.2f} warp-instructions a "
            "clock (the consumer warps' lone streams), masked steps' extra instructions too"
        )
    return replace(flat if lone else rates, phase_overlap=overlap, sched_scale=scale), note


#: The consumer warps' softmax streams set the issue lane's rate (:func:`lone_stream_issue`),
#: so that a masked step's extra instructions cost the ping-pong bound's cycles per
#: instruction too, not the SM's full issue rate. Suggested by the ranking look over wgmma
#: sets 1-5 (reports/kernels/wgmma/ranking_look), adopted by held-out set 6's rule, fixed
#: before its measurement (on an H100: mean Spearman 0.46 -> 0.50, first choices > 3 % off
#: 2 -> 1, MAPE 5.09 -> 5.34 %; reports/kernels/wgmma/heldout6). On by default;
#: ``lone_stream_masks(False)`` times the model as it was before.
LONE_STREAM_ISSUE: ContextVar[bool] = ContextVar("wgmma_lone_stream_issue", default=True)


@contextmanager
def lone_stream_masks(on: bool = True) -> Iterator[None]:
    """Within the block, time wgmma ping-pong steps with :data:`LONE_STREAM_ISSUE` ``on``
    (``False``: the masked steps' extra instructions at the SM's full issue rate, as before
    held-out set 6)."""
    token = LONE_STREAM_ISSUE.set(on)
    try:
        yield
    finally:
        LONE_STREAM_ISSUE.reset(token)


def lone_stream_issue(rates: Rates, consumer_warpgroups: int, cpi: float) -> Rates:
    """``rates`` with the issue lane at the rate of the consumer warps' lone softmax streams:
    each of the n x 4 consumer warps issues one instruction every ``cpi`` cycles (the
    profile's measured cycles per instruction of that mostly dependent stream beside the
    other warpgroups' products), where that is below the SM's own issue rate. A step with
    more instructions than the steady one (a masked key block's compare and select per
    element) then takes ``cpi`` cycles more per consumer warp's instruction, as the
    wgmma_step microbenchmark's masked rows show (their mask's SASS instructions cost
    2.3-6.0 cycles each at two warpgroups, the softmax's own 3.0-3.8)."""
    lone = consumer_warpgroups * WARPS_PER_WARPGROUP / cpi * rates.clock_hz
    if lone >= rates.pipe_per_s["issue"]:
        return rates
    per_s = rates.pipe_per_s | {"issue": lone}
    return replace(
        rates, pipe_per_s=per_s, pipe_per_tick=rates.pipe_per_tick | {"issue": per_tick(lone)}
    )
