"""From an algorithm's kernel to what the engine runs: occupancy, traced classes, plans, grid.

How coarse the aggregated path makes a kernel depends on how alike its CTAs
are. When a few timing classes cover the grid, CTAs dispatched together run
as one group however many there are, and runs of steps become up to
:data:`~gpusim.engine.chunks.CHUNKS_PER_RUN` chunks. When the classes are many
(causal masking gives every Q block its own program), the CTAs one dispatch hands out
run as one lumped group (:mod:`gpusim.engine.lumped`); without lumping, groups fall
apart to single CTAs and the chunks per run are cut so that the CTAs' phases stay near
:data:`CTA_PHASE_BUDGET` (at least :data:`MIN_CHUNKS_PER_RUN` per run).
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, replace

from algorithms.base import Kernel, OnChip
from algorithms.program import CtaClass, CtaProgram, Step
from gpusim.counting import traced_classes
from gpusim.curves import share_at
from gpusim.engine.active_ctas import capacity_table
from gpusim.engine.chunks import CHUNKS_PER_RUN, chunk_size
from gpusim.engine.clock import TICKS_PER_S
from gpusim.engine.cta_grouping import grouping_note, launch_efficiency
from gpusim.engine.dram_mix import dram_mix
from gpusim.engine.grid import Grid
from gpusim.engine.head_keys import head_scales
from gpusim.engine.mate_age import kernel_ratio as mate_ratio
from gpusim.engine.plan import ClassPlan, build_plan, step_kind, step_work, timing_signature
from gpusim.engine.product_groups import kernel_kappa
from gpusim.engine.rates import Rates
from gpusim.engine.sim import KernelSpec
from gpusim.engine.smem_release import release_share
from gpusim.engine.stream_latency import fill_ticks as stream_fill
from gpusim.engine.switch_replay import instance_key, pipe_note, switch_source
from gpusim.errors import GpusimError
from gpusim.occupancy import Occupancy, occupancy
from gpusim.profiles.schema import HardwareProfile

#: Above this many timing classes a kernel's CTAs are expected to run one by one.
MANY_CLASSES = 8
#: Phases of all CTAs together that the aggregated path aims at for such kernels.
CTA_PHASE_BUDGET = 40_000
MIN_CHUNKS_PER_RUN = 2  # chunks per run never go below this (the pipelined shape needs a middle)
#: Phases a CTA has besides its main loop's chunks (prologue, epilogue, pipeline ends).
FIXED_PHASES = 4
#: Many-class kernels are lumped only when their grid is longer than this many waves (in a short
#: grid the order in which single CTAs end decides the time) and has more than this many CTAs:
#: below, running them one by one costs at most a few seconds and stays closer to the detailed
#: path (the validation sweep's causal runs, 2048 to 8192 CTAs, several CTAs per SM, scatter).
LUMP_MIN_WAVES = 8
LUMP_MIN_CTAS = 10_000
#: Past this many CTAs a few timing classes are lumped too (standard's causal row softmax B8
#: H32 N1000: 35 -> 7 s, 0.02 % off the detailed path; flash2's 16k causal CTAs stay apart).
LUMP_FEW_CLASSES_CTAS = 100_000
#: Lumped grids of more batch-heads than this, each of a wave of CTAs or more, run in plain
#: waves (``prepare``; the row softmax of standard attention: 256 batch-heads of 2048 rows).
LUMP_MAX_CUTS = 64
#: Chunks per run of a lumped kernel (fewer than :data:`CHUNKS_PER_RUN`: its groups are
#: many; within 0.2 % of the detailed path on the cases docs/limits.md lists, as with 16).
LUMP_CHUNKS_PER_RUN = 4
#: Kernels whose traced classes count at most this many steps are planned step by step.
EXPAND_MAX_STEPS = 200_000
#: The least share of the DRAM bandwidth a kernel is charged for (finite for a curve from zero).
MIN_DRAM_SHARE = 1e-3


@dataclass
class PreparedKernel:
    """A kernel ready for the engine, with what the report needs about it."""

    spec: KernelSpec
    occupancy: Occupancy
    chunk_steps: int
    smem_bytes_per_cta: int
    timing_classes: int
    #: what timed the SM's steps: "sass-replay" (the core model) or "pipe" (the pipe model)
    timing_model: str = "pipe"
    #: why a profile with core cycles could not replay this kernel (None: it did, or it has none)
    timing_note: str | None = None
    #: the binary whose loop the core model replayed (``--cubin``/``--sass``), else None
    timing_source: str | None = None

    @property
    def cta_phases(self) -> int:
        """Phases of all CTAs if each were simulated on its own."""
        bh = self.spec.grid.total // self.spec.grid.blocks_per_bh
        return sum(len(p.phases) * p.blocks_per_bh * bh for p in self.spec.plans)


def core_efficiency(
    kernel: Kernel,
    profile: HardwareProfile,
    programs: list,
    rates: Rates,
    ctas_per_sm: int,
    warps_per_cta: int,
) -> float | None:
    """The step efficiency the SM core model gives a compiled tensor-core kernel: the pipe
    model's time for one steady step of each resident CTA at full rates, over the cycles the
    core model takes to run that step's compiled code on every resident warp. None where
    the profile has no core cycles or the kernel no committed loop."""
    c = profile.sass_core_cycles
    if c is None or ctas_per_sm < 1:
        return None
    key = instance_key(kernel, rates)
    if key is None:
        return None
    cycles = _core_step_cycles(
        key, ctas_per_sm, warps_per_cta, tuple(sorted(c.value.items())),
        profile.smem_bandwidth_bytes_per_clk_per_sm.value, profile.warp_schedulers_per_sm.value,
    )  # fmt: skip
    steps = [s for p in programs for s in p.steps if s.mma_flops > 0]
    if cycles is None or not steps:
        return None
    full = rates.step_ticks(step_work(steady_step(steps), rates)) * ctas_per_sm
    return full / (cycles / rates.clock_hz * TICKS_PER_S)


def steady_step(steps: list[Step]) -> Step:
    """The loop's steady step, as the committed SASS loop is (prefetching, no mask): of the
    full tiles' steps, the most common kind; fewest instructions among equals.

    Not simply the full tile with the fewest instructions: with the Q fragments kept in
    registers, the first step also reads Q from shared memory (16 rows per warp), and
    taking it overstated the pipe model's step, by 5-15 % at d128.
    """
    full = max(s.mma_flops for s in steps)
    kinds: Counter = Counter()
    for s in steps:
        if s.mma_flops == full:
            kinds[step_kind(s)] += s.repeat
    common = max(kinds.values())
    return min(
        (s for s in steps if s.mma_flops == full and kinds[step_kind(s)] == common),
        key=lambda s: s.instrs,
    )


def _pingpong(kernel: Kernel, profile: HardwareProfile, programs: list, rates: Rates):
    """A wgmma kernel's rates at the ping-pong bound and its note, or None (see
    :func:`gpusim.engine.wgmma_rates.pingpong_rates`)."""
    from gpusim.engine.wgmma_rates import pingpong_rates

    steps = [s for p in programs for s in p.steps if s.mma_flops > 0]
    return pingpong_rates(rates, profile, kernel, lambda: steady_step(steps))


@functools.cache
def _core_step_cycles(
    key: str, ctas: int, warps: int, cycles: tuple, smem_bytes_per_clk: float, schedulers: int
) -> float | None:
    from gpusim.engine.core_table import cycles_per_step

    return cycles_per_step(key, ctas, warps, dict(cycles), smem_bytes_per_clk, schedulers)


def prepare(
    kernel: Kernel,
    profile: HardwareProfile,
    rates: Rates,
    aggregated: bool,
    budget: list[int],
    chip: OnChip | None = None,
    classes: list[CtaClass] | None = None,
    lump: bool = True,
    binary=None,
) -> PreparedKernel:
    """Occupancy, one traced program per class, plans and grid of ``kernel``.

    ``chip`` replaces the kernel's own footprint estimate (validation passes a compiled
    kernel's real registers and shared memory); ``classes`` are the kernel's traced
    classes when the caller has them already. ``rates`` are moved to the kernel's own SM
    clock (:meth:`~gpusim.engine.rates.Rates.for_kernel`). ``lump``: on the aggregated
    path, a kernel with more than :data:`MANY_CLASSES` timing classes (causal) runs the CTAs
    one dispatch hands out together as one lumped group (:mod:`gpusim.engine.lumped`);
    without it they run one by one, in fewer, coarser chunks. ``binary``: a loop read from a
    binary (:class:`~gpusim.kernel_catalog.binary_sass.BinaryLoop`) that the core model
    replays for this kernel's steps instead of the committed loops (refused, never dropped,
    where it cannot: :mod:`gpusim.engine.replay_binary`).
    """
    chip = chip or kernel.on_chip()
    occ = occupancy(
        profile, chip.smem_bytes, chip.threads, chip.regs_per_thread, chip.max_ctas_per_sm
    )
    if classes is None:
        classes = traced_classes(kernel, budget)
    programs = planned_programs(classes)
    # The SM clock follows the load: tensor-core kernels run at the clock under HMMA load.
    products = any(s.mma_flops for p in programs for s in p.steps)
    rates = rates.for_kernel(products)
    timing_model, timing_note, timing_source = "pipe", None, None
    if binary is not None and not products:
        raise GpusimError(f"{kernel.name} does no tensor-core products: no loop to replay")
    if binary is not None:
        from gpusim.engine.replay_binary import binary_core_efficiency

        warps = occ.warps_per_cta
        steps = [s for p in programs for s in p.steps if s.mma_flops > 0]
        step = steady_step(steps)
        core, per_pass = binary_core_efficiency(
            binary, profile, step, rates, occ.ctas_per_sm, warps
        )
        table = capacity_table(
            lambda n: binary_core_efficiency(binary, profile, step, rates, n, warps)[0],
            occ.ctas_per_sm,
        )
        rates = replace(rates, sched_scale=1.0 / core, barrier_ticks=0, sched_capacity=table)
        timing_model = "sass-replay"
        timing_source = f"{binary.source}: {binary.label()} ({per_pass} step(s) per loop pass)"
    elif products and (pp := _pingpong(kernel, profile, programs, rates)) is not None:
        # The ping-pong bound models the latencies itself: no step efficiency on top.
        rates, timing_source = pp
    elif products:
        # Few warps expose the latencies; measured on loops with products, so only they get it.
        warps = occ.warps_per_cta
        core = core_efficiency(kernel, profile, programs, rates, occ.ctas_per_sm, warps)
        if core is not None:
            # The pipes keep their rates; each serial phase holds the SM's schedulers for
            # the core model's time (its CTAs' phases queue there, so a round of steps of
            # every resident CTA takes the core model's cycles, barriers' waits included).
            table = capacity_table(
                lambda n: core_efficiency(kernel, profile, programs, rates, n, warps),
                occ.ctas_per_sm,
            )
            rates = replace(rates, sched_scale=1.0 / core, barrier_ticks=0, sched_capacity=table)
            timing_model = "sass-replay"
            timing_source = switch_source(kernel)
        else:
            table = capacity_table(lambda n: launch_efficiency(profile, n, warps), occ.ctas_per_sm)
            eff = launch_efficiency(profile, occ.ctas_per_sm, warps)
            kappa, kappa_note = kernel_kappa(profile, kernel, occ.ctas_per_sm, warps)
            rates = replace(rates.at_efficiency(eff), sched_capacity=table, product_kappa=kappa,
                            smem_release=release_share(profile))  # fmt: skip
            notes = [grouping_note(profile, kernel.name, warps), kappa_note,
                     pipe_note(profile, kernel)]  # fmt: skip
            timing_note = "; ".join(n for n in notes if n) or None
    slots = occ.ctas_per_sm * rates.sm_count
    lumpable = aggregated and lump and kernel.num_ctas > max(LUMP_MIN_WAVES * slots, LUMP_MIN_CTAS)
    per_run = CHUNKS_PER_RUN
    if lumpable and len(classes) > MANY_CLASSES:
        per_run = LUMP_CHUNKS_PER_RUN
    k = chunk_size(programs, detailed=not aggregated, chunks_per_run=per_run)
    memo: dict = {}  # step times at these rates, shared by every plan built below

    def plans_at(k: int) -> list[ClassPlan]:
        return [
            build_plan(
                c.key,
                i,
                c.representative_block,
                len(c.blocks),
                programs[i],
                kernel.own_rows,
                k,
                kernel.schedule.stages,
                rates,
                memo,
                head_scales(kernel),
            )
            for i, c in enumerate(classes)
        ]

    if aggregated and not lumpable and _never_few_timing_classes(programs):
        # No chunk size makes this kernel's timing classes few, so the search below would
        # build every class's plans at each coarser size only to find that again (15 times
        # for a causal N16384 kernel of 128 classes: most of its preparation). The sizes it
        # would try, and the one it would end at, follow from ``chunk_size`` alone.
        k = _coarsest_chunk_size(programs, kernel.num_ctas, k, per_run)
        plans = plans_at(k)
        timing = _timing_classes(plans)
        n_timing = len(set(timing))
        lumped = False
    else:
        few_enough = 1 if kernel.num_ctas > LUMP_FEW_CLASSES_CTAS else MANY_CLASSES
        while True:
            plans = plans_at(k)
            timing = _timing_classes(plans)
            n_timing = len(set(timing))
            lumped = lumpable and n_timing > few_enough
            if lumped:
                break
            if not aggregated or n_timing <= MANY_CLASSES or per_run <= MIN_CHUNKS_PER_RUN:
                break
            per_run = _fewer_chunks(per_run, kernel.num_ctas)
            k_new = chunk_size(programs, detailed=False, chunks_per_run=per_run)
            if k_new == k:
                break
            k = k_new
    block_classes = [0] * kernel.blocks_per_bh()
    for i, c in enumerate(classes):
        for b in c.blocks:
            block_classes[b] = i
    grid = Grid(kernel.blocks_per_bh(), kernel.grid_batch_heads, block_classes, timing,
                last_first=kernel.last_blocks_first())  # fmt: skip
    if lumped:
        # Lumped groups stay within a batch-head: across its end the lengths jump (short
        # CTAs beside long ones), and the SMs of the short ones get new work at once, where
        # a group that lumped them would hold them at the mean. And the SMs are lumped in
        # strata that drift apart (kernel_run.LUMP_STRATA): the loads and stores of CTAs
        # that start and end together would all collide. Each cut at a batch-head's end
        # splits the SMs for good, so a grid of many batch-heads, each of a wave of CTAs
        # or more, runs in plain waves instead: its batch-heads' ends are a small part of it.
        plain = kernel.grid_batch_heads > LUMP_MAX_CUTS and grid.blocks_per_bh >= slots
        grid.lump(grid.total, by_batch_head=not plain)
    spec = KernelSpec(kernel.name, grid, plans, occ.ctas_per_sm, aggregated, rates, lumped)
    spec.l2_fetch_factor = l2_fetch_factor(profile, kernel)
    spec.dram_costs = dram_costs(profile, kernel, chip.threads * occ.ctas_per_sm)
    spec.kv_group = kernel.kv_group()
    spec.fill_ticks, spec.fill_model = stream_fill(profile, kernel, plans, occ.ctas_per_sm, rates)
    spec.mate_ratio, spec.mate_note = mate_ratio(profile, kernel, occ.ctas_per_sm)
    return PreparedKernel(
        spec, occ, k, chip.smem_bytes, n_timing, timing_model, timing_note, timing_source
    )


def _fewer_chunks(per_run: int, num_ctas: int) -> int:
    """The next chunks per run the search of ``prepare`` tries: one fewer, or as many as
    keep the CTAs' phases near :data:`CTA_PHASE_BUDGET`, never below the minimum."""
    fit = CTA_PHASE_BUDGET // max(1, num_ctas) - FIXED_PHASES
    return max(MIN_CHUNKS_PER_RUN, min(per_run - 1, fit))


def _never_few_timing_classes(programs: list[CtaProgram]) -> bool:
    """Whether every chunk size leaves more than :data:`MANY_CLASSES` timing classes: a
    timing signature holds each chunk's step count, so programs of different lengths never
    share one, whatever the chunks."""
    return len({p.step_count for p in programs}) > MANY_CLASSES


def _coarsest_chunk_size(programs: list[CtaProgram], num_ctas: int, k: int, per_run: int) -> int:
    """The chunk size at which the search of ``prepare`` stops for a kernel whose timing
    classes stay many: coarser sizes until the minimum chunks per run, or one that no
    longer changes."""
    while per_run > MIN_CHUNKS_PER_RUN:
        per_run = _fewer_chunks(per_run, num_ctas)
        k_new = chunk_size(programs, detailed=False, chunks_per_run=per_run)
        if k_new == k:
            break
        k = k_new
    return k


def planned_programs(classes: list[CtaClass]) -> list[CtaProgram]:
    """The programs the plans are built from: step by step where the kernel's classes count
    at most :data:`EXPAND_MAX_STEPS` steps (the plans the tracer gave before it compressed
    loops, float for float), compressed otherwise."""
    if sum(c.program.step_count for c in classes) > EXPAND_MAX_STEPS:
        return [c.program for c in classes]
    return [c.expanded_program() for c in classes]


def l2_fetch_factor(profile: HardwareProfile, kernel: Kernel) -> float:
    """Bytes the SMs fetch from the L2 per byte ``kernel`` reads: the profile's figure for
    copies into padded shared rows where the kernel makes them, else 1 (what it asks for);
    1 too where the profile has no measurement of it (gpusim.profiles.gaps says so)."""
    factor = profile.l2_fetch_bytes_per_byte_padded_row_copy
    if kernel.copies_into_padded_rows() and factor is not None:
        return factor.value
    return 1.0


def dram_cost(profile: HardwareProfile, kernel: Kernel, threads_per_sm: int) -> float:
    """DRAM bandwidth one byte of ``kernel`` takes over one byte's: 1 over the share of the
    bandwidth its bytes in flight reach (the profile's ``dram_share_by_inflight``, measured
    with loads that wait for each other as the kernel's do); 1 where either is unknown."""
    per_thread = kernel.load_bytes_in_flight_per_thread()
    curve = profile.dram_share_by_inflight
    if per_thread is None or curve is None:
        return 1.0
    # The bytes its resident threads can have in flight, as if they were loading all the
    # time: a kernel that also computes has fewer in flight on average, so for it this cap
    # is too lenient (the row softmax of short rows: reports/validation/notes.md, Update 6).
    share = share_at(curve.value, per_thread * threads_per_sm)
    return 1.0 / max(share, MIN_DRAM_SHARE)


def dram_costs(profile: HardwareProfile, kernel: Kernel, threads_per_sm: int):
    """(DRAM lane cost of a byte ``kernel`` reads, of a byte it writes): a kernel of register
    loads that declares its bytes in flight pays :func:`dram_cost` for both; a kernel of
    tile copies reads at the read stream's bandwidth (:mod:`gpusim.engine.dram_mix`)."""
    if kernel.load_bytes_in_flight_per_thread() is None:
        return dram_mix(profile)
    cost = dram_cost(profile, kernel, threads_per_sm)
    return (cost, cost)


def _timing_classes(plans) -> list[int]:
    """For each class, the class that stands for its timing (the most numerous alike one)."""
    by_sig: dict[tuple, list[int]] = {}
    for p in plans:
        by_sig.setdefault(timing_signature(p), []).append(p.index)
    out = [0] * len(plans)
    for members in by_sig.values():
        rep = max(members, key=lambda i: (plans[i].blocks_per_bh, -i))
        for i in members:
            out[i] = rep
    return out
