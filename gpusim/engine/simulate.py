"""``simulate``: trace an algorithm's kernels, run them on the engine, and report.

Paths (``detail``):

- ``"full"``: every CTA and every tile step is simulated (ground truth of the model);
- ``"aggregated"``: CTAs dispatched together with the same program run as one
  group (:mod:`gpusim.engine.cta_group`) and runs of steps are merged into at
  most :data:`~gpusim.engine.chunks.CHUNKS_PER_RUN` chunks (:mod:`gpusim.engine.plan`);
- ``"auto"`` (default): ``full`` when it is cheap (at most
  :data:`AUTO_FULL_MAX_PHASES` CTA-phases), ``aggregated`` otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path

from algorithms import get_algorithm
from algorithms.base import OnChip
from gpusim.counting import MAX_TRACED_STEPS, count, traced_classes
from gpusim.engine.clock import seconds
from gpusim.engine.collector import fewer_collections
from gpusim.engine.counters import Counters
from gpusim.engine.cta_issue import CTA_ISSUE, cta_issue_per_warp
from gpusim.engine.dram_mix import dram_mix
from gpusim.engine.hook import GpuHandle, UserProcess
from gpusim.engine.plan import min_cta_phases
from gpusim.engine.prepare import MANY_CLASSES, PreparedKernel, prepare, steady_step
from gpusim.engine.rates import rates_for
from gpusim.engine.replay_binary import steps_per_pass
from gpusim.engine.result import KernelResult, SimResult, bound_of, utilisation
from gpusim.engine.sim import Sim, run_kernels
from gpusim.errors import GpusimError
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

DETAILS = ("auto", "aggregated", "full")
#: ``auto`` simulates every CTA and step when that is at most this many CTA-phases.
AUTO_FULL_MAX_PHASES = 4_000
#: The detailed path refuses more CTA-phases than this (minutes of wall time).
FULL_MAX_PHASES = 2_000_000
#: Without lumping (``extrapolate=False``), the aggregated path refuses kernels whose CTAs it
#: would have to run one by one past this.
AGGREGATED_MAX_PHASES = 1_000_000


def _check_detail(detail: str) -> None:
    if detail not in DETAILS:
        raise GpusimError(f"unknown detail {detail!r}; use one of {', '.join(DETAILS)}")


def _min_full_phases(kernels: list, traced: list) -> int:
    """A lower bound on the detailed path's CTA-phases, without building its plans."""
    return sum(
        min_cta_phases(c.program) * c.count_per_bh * k.grid_batch_heads
        for k, classes in zip(kernels, traced, strict=True)
        for c in classes
    )


#: How a binary given to :func:`simulate` times its kernel: the SM core model replaying its
#: loop, or the pipe model charging its loop's instruction count.
BINARY_TIMINGS = ("replay", "counts")


def _binary_kernel(kernels: list, traced: list, binary) -> str | None:
    """The one kernel doing tensor-core products, whose steps ``binary``'s loop times."""
    if binary is None:
        return None
    products = [
        k.name
        for k, classes in zip(kernels, traced, strict=True)
        if any(s.mma_flops for c in classes for s in c.program.steps)
    ]
    if len(products) != 1:
        raise GpusimError(
            f"a binary's loop times one kernel; this algorithm launches {len(products)} that do "
            "tensor-core products"
        )
    return products[0]


def simulate(
    algorithm: str,
    workload: Workload,
    schedule: Schedule,
    profile: HardwareProfile,
    *,
    trace_path: str | Path | None = None,
    detail: str = "auto",
    on_chip: Mapping[str, OnChip] | None = None,
    extrapolate: bool = True,
    processes: Sequence[UserProcess] | None = None,
    binary=None,
    binary_timing: str = "replay",
) -> SimResult:
    """Simulate ``algorithm`` on ``profile``; ``trace_path`` also writes a Chrome trace.

    ``on_chip`` maps kernel names to footprints that replace the algorithm's estimates
    (a compiled kernel's real registers and shared memory, as validation uses).
    ``extrapolate=False`` turns off the skips of kernels out of lockstep on the aggregated
    path (:mod:`gpusim.engine.stream_skip`, an approximation within 0.01 %;
    :mod:`gpusim.engine.scatter_skip`) and the lumping of causal grids.
    ``processes``: generator functions, each called with a
    :class:`~gpusim.engine.hook.GpuHandle` and run as a SimPy process beside the
    kernels (docs/engine.md). ``binary``: a loop read from a binary
    (:func:`gpusim.kernel_catalog.binary_sass.binary_loop`) that the SM core model replays
    for the algorithm's tensor-core kernel, with the binary's registers where it records them.
    ``binary_timing="counts"``: the pipe model times that kernel instead, its steady step
    issuing the binary's own count of warp-instructions (the schedule's
    ``step_issue_per_warp``, :attr:`~gpusim.kernel_catalog.binary_sass.BinaryLoop.
    issue_besides_products`), with the binary's registers.
    """
    if binary_timing not in BINARY_TIMINGS:
        raise GpusimError(
            f"unknown binary timing {binary_timing!r}; use {' or '.join(BINARY_TIMINGS)}"
        )
    if binary is None and binary_timing != "replay":
        raise GpusimError(f"binary timing {binary_timing!r} needs a binary's loop (cubin or sass)")
    counts = binary is not None and binary_timing == "counts"
    if workload.pass_ == "fwd+bwd" and (counts or schedule.step_issue_per_warp is not None):
        # a training step runs two loops, the forward's and the backward's, and has one count
        raise GpusimError(
            "binary timing 'counts' (step_issue_per_warp) charges one loop's count; "
            "--pass fwd+bwd runs two: time each pass with its own binary (--pass fwd, --pass bwd)"
        )
    if counts:
        update = {"step_issue_per_warp": float(binary.issue_besides_products)}
        if workload.pass_ == "fwd" and CTA_ISSUE.on:
            update["cta_issue_per_warp"] = cta_issue_per_warp(binary, workload, schedule)
        schedule = schedule.model_copy(update=update)
    with fewer_collections():  # preparation and run: both allocate heavily
        return _simulate(
            algorithm, workload, schedule, profile, trace_path, detail, on_chip, extrapolate,
            processes, binary, binary_timing == "replay",
        )  # fmt: skip


def _backward_rates(profile, workload: Workload, schedule: Schedule) -> dict:
    """``{backward schedule: its rates}`` where a training step's backward has tiles of its
    own (its warps set its barriers' cost); empty otherwise."""
    if not schedule.has_bwd_tiles:
        return {}
    b = schedule.backward()
    return {b: rates_for(profile, workload.dtype, b.warps, schedule=b, head_dim=workload.head_dim)}


def _simulate(
    algorithm: str,
    workload: Workload,
    schedule: Schedule,
    profile: HardwareProfile,
    trace_path: str | Path | None,
    detail: str,
    on_chip: Mapping[str, OnChip] | None,
    extrapolate: bool,
    processes: Sequence[UserProcess] | None,
    binary,
    replay: bool = True,
) -> SimResult:
    real = dict(on_chip or {})
    t0 = time.perf_counter()
    _check_detail(detail)
    counts = count(algorithm, workload, schedule)
    schedule = Schedule(**counts.schedule)
    kernels = get_algorithm(algorithm).kernels(workload, schedule)
    rates = rates_for(
        profile, workload.dtype, schedule.warps, schedule=schedule, head_dim=workload.head_dim
    )
    own = _backward_rates(profile, workload, schedule)

    budget = [MAX_TRACED_STEPS]
    traced = [traced_classes(k, budget) for k in kernels]
    replayed = _binary_kernel(kernels, traced, binary)
    if replayed is not None and binary.registers and replayed not in real:
        k = next(k for k in kernels if k.name == replayed)
        real[replayed] = replace(k.on_chip(), regs_per_thread=binary.registers)
    if replayed is not None and not replay:
        # counts: the binary's loop must be the traced step, as for a replay
        i = next(i for i, k in enumerate(kernels) if k.name == replayed)
        steps = [s for c in traced[i] for s in c.program.steps if s.mma_flops > 0]
        steps_per_pass(binary, steady_step(steps).mma_flops, kernels[i].schedule.warps)
        replayed = None  # the pipe model times it

    def prepare_all(aggregated: bool) -> list[PreparedKernel]:
        """Every kernel ready for one path."""
        return [
            prepare(
                k,
                profile,
                own.get(k.schedule, rates),
                aggregated,
                budget,
                real.get(k.name),
                classes,
                extrapolate,
                binary if k.name == replayed else None,
            )
            for k, classes in zip(kernels, traced, strict=True)
        ]

    want_full = detail == "full"
    prepared = prepare_all(not want_full)
    if detail == "auto" and _min_full_phases(kernels, traced) <= AUTO_FULL_MAX_PHASES:
        # (Only built when it may be small enough: a large causal kernel's detailed plans,
        # built only to count their phases, were 4 % of its simulation: B8 H32 N4096 d128.)
        full = prepare_all(False)
        if sum(p.cta_phases for p in full) <= AUTO_FULL_MAX_PHASES:
            prepared, want_full = full, True
    if not want_full:
        alone = sum(
            p.cta_phases for p in prepared if p.timing_classes > MANY_CLASSES and not p.spec.lumped
        )
        if alone > AGGREGATED_MAX_PHASES:
            raise GpusimError(
                f"{algorithm} on this workload has CTAs of many different programs (causal "
                f"masking), which the engine runs one by one: about {alone:,} CTA-phases, "
                f"limit {AGGREGATED_MAX_PHASES:,}; use fewer batch x heads (time scales with "
                f"them) or larger blocks"
            )
    if want_full:
        phases = sum(p.cta_phases for p in prepared)
        if phases > FULL_MAX_PHASES:
            raise GpusimError(
                f"the detailed simulation would run {phases:,} CTA-phases (limit "
                f"{FULL_MAX_PHASES:,}); use detail 'aggregated' or a smaller workload"
            )

    for p in prepared:
        p.spec.extrapolate = extrapolate and not want_full
    tracer = None
    if trace_path is not None:
        from gpusim.engine.trace_export import ChromeTracer

        tracer = ChromeTracer(profile.sm_count.value)
    sim = Sim(rates, tracer)
    gpu = GpuHandle(sim)
    user = [lambda fn=fn: fn(gpu) for fn in processes or ()]
    t1 = time.perf_counter()
    runs = run_kernels(sim, [p.spec for p in prepared], user)
    engine_wall_s = time.perf_counter() - t1

    total = Counters()
    kresults = []
    dram_lane = dram_mix(profile)  # the DRAM's best cost per byte read, per byte written
    for run, prep in zip(runs, prepared, strict=True):
        spec, occ = prep.spec, prep.occupancy
        c = run.counters
        c.sm_l2_read_bytes = round(c.global_read_bytes * spec.l2_fetch_factor)
        total.add(run.counters)
        dur = seconds(run.end_tick - run.start_tick)
        krates = spec.rates or rates  # the kernel's own (its clock: rates.for_kernel)
        util = utilisation(run.counters, krates, dur, dram_lane)
        kresults.append(
            KernelResult(
                name=spec.name,
                ctas=spec.grid.total,
                classes=len(spec.plans),
                ctas_per_sm=occ.ctas_per_sm,
                occupancy_bound_by=occ.bound_by,
                waves=spec.grid.total / (occ.ctas_per_sm * rates.sm_count),
                smem_bytes_per_cta=prep.smem_bytes_per_cta,
                chunk_steps=prep.chunk_steps,
                aggregated=spec.aggregated,
                start_s=seconds(run.start_tick),
                duration_s=dur,
                counters=run.counters,
                utilisation=util,
                bound=bound_of(util),
                groups=run.groups_made,
                timing_model=prep.timing_model,
                timing_note=prep.timing_note,
                timing_source=prep.timing_source,
                waves_extrapolated=run.waves_skipped,
                sm_clock_hz=krates.clock_hz,
                dram_fill=spec.fill_model,
                mate_first_wave_ratio=spec.mate_ratio,
                mate_note=spec.mate_note,
            )
        )
    runtime_s = seconds(sim.now)
    util = utilisation(total, rates, runtime_s, dram_lane)
    main = max(kresults, key=lambda r: r.duration_s)
    result = SimResult(
        count=counts.to_json_dict(),
        profile=profile.name,
        detail="full" if want_full else "aggregated",
        runtime_s=runtime_s,
        tflops=workload.model_flops() / runtime_s / 1e12 if runtime_s > 0 else 0.0,
        counters=total,
        ctas_per_sm=main.ctas_per_sm,
        waves=main.waves,
        smem_bytes_per_cta=counts.smem_bytes_per_cta,
        utilisation=util,
        bound=bound_of(util),
        events=sim.env.events,
        sim_wall_s=0.0,
        engine_wall_s=engine_wall_s,
        kernels=kresults,
        sm_count=profile.sm_count.value,
    )
    if tracer is not None:
        result.trace_path = str(trace_path)
        tracer.write(trace_path, sim, runs, result)
    result.sim_wall_s = time.perf_counter() - t0
    return result


__all__ = ["DETAILS", "SimResult", "asdict", "simulate"]
