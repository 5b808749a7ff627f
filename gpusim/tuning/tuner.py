"""The tuner: enumerate the schedules, reject those that do not fit, simulate and rank the rest.

``tune`` is what ``gpusim tune`` prints: the ranked candidates (predicted
runtime, TFLOP/s, DRAM and SM-to-L2 bytes, CTAs per SM, the bound), every
rejected schedule with its reason, and what the paper's and seed 000's rules
would have picked and how much slower the model predicts them to be.

Each schedule is also tried with fewer CTAs per SM than fit (see
:mod:`gpusim.tuning.launch_caps`): the candidate is its faster launch. That is
what makes a larger SRAM never slower: every launch the smaller SRAM allows is
one of the larger SRAM's capped launches.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.compiled import Compiled, compiled_footprints
from gpusim.kernel_catalog.compiled_chips import FOOTPRINTS
from gpusim.parallel_map import pmap
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.tuning.candidates import SCHEDULE_KEYS, Candidate, Rejected, TuneResult
from gpusim.tuning.feasibility import Verdict, check
from gpusim.tuning.inference_space import tuning_space
from gpusim.tuning.launch_caps import LaunchCap, launch_caps
from gpusim.tuning.rule_snap import rule_picks
from gpusim.tuning.space import SearchSpace
from gpusim.tuning.sram import KIB, with_sram_bytes
from gpusim.tuning.training_space import training_space
from gpusim.tuning.wgmma_space import wgmma_space
from gpusim.workload import Workload

#: Where a candidate's registers per thread come from (see :mod:`gpusim.kernel_catalog.compiled`).
__all__ = ["FOOTPRINTS", "SCHEDULE_KEYS", "Candidate", "Rejected", "TuneResult", "tune"]


#: The engine's entry point: (algorithm, workload, schedule, profile, detail=...) -> SimResult.
Simulate = Callable[..., Any]


def engine_simulate() -> Simulate:
    """The engine's ``simulate`` (imported late: it is the heavy part)."""
    from gpusim.engine import simulate

    return simulate


def _launch(
    simulate: Simulate,
    algorithm: str,
    w: Workload,
    v: Verdict,
    chips: dict,
    cap: LaunchCap | None,
    profile: HardwareProfile,
) -> Candidate:
    """Simulate one launch of a feasible schedule on the engine's aggregated path."""
    if cap is not None:
        chips = {k: replace(c, max_ctas_per_sm=cap.ctas_per_sm[k]) for k, c in chips.items()}
    r = simulate(algorithm, w, v.schedule, profile, detail="aggregated", on_chip=chips)
    return Candidate(
        schedule=v.schedule,
        smem_bytes_per_cta=v.footprint.smem_bytes_per_cta,
        regs_per_thread=v.footprint.regs_per_thread,
        runtime_s=r.runtime_s,
        tflops=w.model_flops() / r.runtime_s / 1e12,
        dram_read_bytes=r.dram_read_bytes,
        dram_write_bytes=r.dram_write_bytes,
        l2_bytes=r.global_read_bytes + r.global_write_bytes,
        ctas_per_sm=r.ctas_per_sm,
        bound=r.bound,
        ctas_per_sm_max=r.ctas_per_sm,
        smem_per_sm_budget_bytes=None if cap is None else cap.smem_per_sm_bytes,
        executed_mma_flops=getattr(r, "count", {}).get("executed_mma_flops", 0),
    )


def _chips(
    algorithm: str, w: Workload, v: Verdict, compiled: dict[Schedule, Compiled]
) -> dict[str, Any]:
    """Each kernel's on-chip needs, with the compiled registers where recorded (the engine's
    occupancy sees them too)."""
    from algorithms import get_algorithm

    comp = compiled.get(v.schedule)
    return {
        k.name: replace(k.on_chip(), regs_per_thread=comp.registers)
        if comp is not None and k.uses_tile_instance()
        else k.on_chip()
        for k in get_algorithm(algorithm).kernels(w, v.schedule)
    }


def _faster_launch(full: Candidate, capped: list[Candidate]) -> Candidate:
    """The full launch, or a capped one that is strictly faster (ties keep the full launch)."""
    best = full
    for c in capped:
        if c.runtime_s < best.runtime_s:
            best = replace(c, ctas_per_sm_max=full.ctas_per_sm)
    return best


def _predict(
    simulate: Simulate,
    algorithm: str,
    w: Workload,
    v: Verdict,
    *,
    profile: HardwareProfile,
    compiled: dict[Schedule, Compiled],
    caps: bool = True,
) -> Candidate:
    """The faster launch of one feasible schedule: all the CTAs that fit, or fewer."""
    chips = _chips(algorithm, w, v, compiled)
    full = _launch(simulate, algorithm, w, v, chips, None, profile)
    capped = [
        _launch(simulate, algorithm, w, v, chips, cap, profile)
        for cap in (launch_caps(profile, chips) if caps else [])
    ]
    return _faster_launch(full, capped)


def _predict_all(
    simulate: Simulate,
    algorithm: str,
    w: Workload,
    fits: list[Verdict],
    *,
    profile: HardwareProfile,
    compiled: dict[Schedule, Compiled],
    caps: bool,
    jobs: int | None,
    on_done: Callable[[int, int], None] | None,
) -> list[Candidate | str]:
    """:func:`_predict` of every feasible schedule, each launch (full or capped) a task of its
    own: the processes share the work evenly, whatever the number of caps per schedule. A
    schedule whose full launch the engine refuses (its limits) is the refusal's message; a
    refused capped launch is left out."""
    chips = [_chips(algorithm, w, v, compiled) for v in fits]
    launches = [
        (i, cap)
        for i, c in enumerate(chips)
        for cap in [None, *(launch_caps(profile, c) if caps else [])]
    ]

    def one(task: tuple[int, LaunchCap | None]) -> Candidate | str:
        i, cap = task
        try:
            return _launch(simulate, algorithm, w, fits[i], chips[i], cap, profile)
        except GpusimError as exc:  # the engine refuses this launch (its limits): say why
            return str(exc)

    done = pmap(one, launches, jobs, on_done)
    by_schedule: list[list[Candidate | str]] = [[] for _ in fits]
    for (i, _cap), c in zip(launches, done, strict=True):
        by_schedule[i].append(c)  # the full launch first, then the caps in order
    out: list[Candidate | str] = []
    for c in by_schedule:
        if isinstance(c[0], str):
            out.append(c[0])  # the full launch refused: the schedule is, with its reason
        else:
            out.append(_faster_launch(c[0], [x for x in c[1:] if not isinstance(x, str)]))
    return out


def _without_split_twins(verdicts: list[Verdict]) -> list[Verdict]:
    """The verdicts but those of split-KV schedules whose tile (``kv_splits`` 1) does not fit
    either: the split kernel is that tile's kernel, so they fail alike (listed once)."""
    rejected = {v.schedule for v in verdicts if not v.fits}
    return [
        v
        for v in verdicts
        if v.schedule.kv_splits == 1
        or v.schedule.model_copy(update={"kv_splits": 1}) not in rejected
    ]


#: (schedule, profile) -> Verdict, with the algorithm, workload and footprints bound.
Checker = Callable[[Schedule, HardwareProfile], Verdict]


def smallest_sram_bytes(
    checker: Checker, profile: HardwareProfile, verdicts: list[Verdict]
) -> int | None:
    """The smallest per-CTA SRAM in which some schedule of the space fits (None: none ever does)."""
    for need in sorted({v.footprint.smem_bytes_per_cta for v in verdicts if v.footprint}):
        p = with_sram_bytes(profile, need)
        if any(checker(v.schedule, p).fits for v in verdicts if v.footprint):
            return need
    return None


def _no_fit_error(
    checker: Checker, what: str, profile: HardwareProfile, verdicts: list[Verdict], sram_bytes: int
) -> GpusimError:
    need = smallest_sram_bytes(checker, profile, verdicts)
    if need is None:
        # No SRAM size helps: say what blocks the schedules once shared memory is unlimited.
        needs = [v.footprint.smem_bytes_per_cta for v in verdicts if v.footprint]
        roomy = with_sram_bytes(profile, max(needs)) if needs else profile
        reasons = [checker(v.schedule, roomy).reason for v in verdicts]
        reasons = sorted({r for r in reasons if r} or {v.reason for v in verdicts if v.reason})
        return GpusimError(
            f"no schedule of {what} can run on {profile.name} at any SRAM size: {reasons[0]}"
        )
    return GpusimError(
        f"no schedule of {what} fits in {sram_bytes / KIB:g} KiB of shared memory per CTA; "
        f"the smallest SRAM that works is {-(-need // KIB)} KiB ({need} B): use --sram-kib "
        f"{-(-need // KIB)} or more"
    )


def _compiled(space: SearchSpace, profile: HardwareProfile) -> dict[Schedule, Compiled]:
    """ptxas's report for each kernel instance of the space, where the build recorded one."""
    if not space.instance_keys:
        return {}
    table = compiled_footprints(profile.compute_capability)
    return {s: table[k] for s, k in space.instance_keys.items() if k in table}


def _restrict(schedules: tuple[Schedule, ...], fixed: dict[str, int]) -> list[Schedule]:
    """The schedules whose fields equal ``fixed``; a one-line error if none does."""
    out = list(schedules)
    for key, value in fixed.items():
        kept = [s for s in out if getattr(s, key) == value]
        if not kept:
            have = "/".join(str(v) for v in sorted({getattr(s, key) for s in out}))
            option = "--" + key.replace("_", "-")
            raise GpusimError(f"{option} {value} is not in the search space; it has {have}")
        out = kept
    return out


def _verdicts(space, checker, profile: HardwareProfile, fixed) -> list[Verdict]:
    """Every schedule of ``space`` that ``fixed`` keeps, checked on ``profile`` (split twins
    dropped)."""
    schedules = _restrict(space.schedules, fixed or {})
    return _without_split_twins([checker(s, profile) for s in schedules])


def feasible(algorithm: str, workload: Workload, profile: HardwareProfile) -> list[Schedule]:
    """The schedules :func:`tune` would simulate for ``workload`` on ``profile`` (compiled
    footprints, the profile's own SRAM), in the search space's order, without simulating any:
    what a held-out set of the tuner measures."""
    space = tuning_space(algorithm, workload, profile.sm_count.value)
    compiled = _compiled(space, profile)

    def checker(s: Schedule, p: HardwareProfile) -> Verdict:
        return check(algorithm, workload, s, p, compiled.get(s))

    return [v.schedule for v in _verdicts(space, checker, profile, None)
            if v.fits and v.schedule not in space.unsupported]  # fmt: skip


def tune(
    algorithm: str,
    workload: Workload,
    profile: HardwareProfile,
    sram_bytes: int | None = None,
    simulate: Simulate | None = None,
    fixed: dict[str, int] | None = None,
    jobs: int | None = 1,
    footprints: str = "compiled",
    caps: bool = True,
    on_done: Callable[[int, int], None] | None = None,
    kernel_class: dict[str, Any] | None = None,
    tile_space: dict[str, tuple[int, ...]] | None = None,
) -> TuneResult:
    """Rank every feasible schedule of ``algorithm`` for ``workload`` by predicted runtime.

    ``sram_bytes`` overrides the shared memory one CTA may use (and the SM's, for occupancy);
    ``simulate`` replaces the engine (tests use a closed form); ``fixed`` (e.g.
    ``{"block_m": 128}``) keeps only the schedules with those values; ``jobs``
    processes simulate the candidates (None: one per core). ``footprints="compiled"``
    uses ptxas's registers (and rejects spills) for kernel instances the offline build
    recorded for the profile's architecture; ``"estimate"`` uses the algorithm's formula.
    ``caps=False`` ranks only the launches with every CTA that fits (as the kernel is
    measured), without trying fewer per SM. ``on_done(done, total)`` follows the
    launches simulated (a progress bar).
    """
    if footprints not in FOOTPRINTS:
        raise GpusimError(f"unknown footprints {footprints!r}; use one of {', '.join(FOOTPRINTS)}")
    simulate = simulate or engine_simulate()
    t0 = time.perf_counter()
    overridden = sram_bytes is not None
    if overridden:
        profile = with_sram_bytes(profile, sram_bytes)
    sram = profile.smem_per_block_bytes.value
    if (kernel_class or {}).get("mma") == "wgmma":
        # A wgmma kernel's tiles: modelled, no compiled instance (gpusim.tuning.wgmma_space).
        space = wgmma_space(workload, tile_space, kernel_class.get("o_store"))
        footprints = "estimate"
    elif tile_space:
        raise GpusimError("--tile-space is for --mma wgmma (the project's kernels have theirs)")
    elif workload.pass_ == "fwd+bwd":
        # Each pass on its own tiles: the forward's best (pinned fields are the forward's),
        # then every backward tile behind it (gpusim.tuning.training_space). The forward is
        # one the backward can follow: no key splits or launch orders (inference options).
        fwd_w = workload.model_copy(update={"pass_": "fwd"})
        plain = {"kv_splits": 1, "pack_gqa": False, "kv_order": "forward", "q_order": "last-first"}
        first = tune(
            algorithm, fwd_w, profile, None, simulate, (fixed or {}) | plain, jobs, footprints, caps
        )
        key = tuning_space(algorithm, fwd_w, profile.sm_count.value).instance_keys
        best = first.best.schedule
        space = training_space(algorithm, workload, best, key.get(best))
        fixed = None
    else:
        space = tuning_space(algorithm, workload, profile.sm_count.value)
    compiled = _compiled(space, profile) if footprints == "compiled" else {}

    def checker(s: Schedule, p: HardwareProfile) -> Verdict:
        return check(algorithm, workload, s, p, compiled.get(s))

    verdicts = _verdicts(space, checker, profile, fixed)
    if not any(v.fits for v in verdicts if v.schedule not in space.unsupported):
        supported = [v for v in verdicts if v.schedule not in space.unsupported]
        what = f"{algorithm} (head_dim {workload.head_dim}, {workload.dtype})"
        raise _no_fit_error(checker, what, profile, supported or verdicts, sram)
    # The kernel's own reason comes first: no SRAM size would make those run.
    verdicts = [replace(v, reason=space.unsupported.get(v.schedule, v.reason)) for v in verdicts]
    fits = [v for v in verdicts if v.fits]
    t1 = time.perf_counter()
    predicted = _predict_all(
        simulate,
        algorithm,
        workload,
        fits,
        profile=profile,
        compiled=compiled,
        caps=caps,
        jobs=jobs,
        on_done=on_done,
    )
    refused = [(v, r) for v, r in zip(fits, predicted, strict=True) if isinstance(r, str)]
    if len(refused) == len(fits):
        raise GpusimError(f"the model refuses every schedule that fits: {refused[0][1]}")
    predicted = [
        replace(c, modelled=space.modelled.get(c.schedule))
        for c in predicted
        if not isinstance(c, str)
    ]
    cands = sorted(
        predicted,
        key=lambda c: (
            c.runtime_s,
            -c.schedule.block_m * c.schedule.block_n,
            c.schedule.stages,
            c.schedule.kv_splits,
        ),
    )
    rejected = [
        Rejected(v.schedule, v.reason, v.footprint.smem_bytes_per_cta if v.footprint else None)
        for v in verdicts
        if not v.fits
    ] + [
        Rejected(
            v.schedule,
            f"fits, but the model refuses it: {why}",
            v.footprint.smem_bytes_per_cta if v.footprint else None,
        )
        for v, why in refused
    ]
    # The rules choose a tile; each is given the best warps and stages, not splits.
    plain = [(c.schedule, c.runtime_s) for c in cands if c.schedule.kv_splits == 1]
    # A training step's candidates share the forward's tile: the block rules pick no tile.
    step = workload.pass_ == "fwd+bwd"
    picks = [] if step else rule_picks(workload, sram, plain, cands[0].runtime_s if cands else None)
    t2 = time.perf_counter()
    return TuneResult(
        algorithm=algorithm,
        workload=workload,
        profile=profile.name,
        sm_count=profile.sm_count.value,
        sram_bytes=sram,
        sram_overridden=overridden,
        space_source=space.source,
        kernel_instances=space.kernel_instances,
        candidates=cands,
        rejected=rejected,
        rules=picks,
        wall_s=t2 - t0,
        footprints=f"compiled ({len(compiled)} instances, ptxas)" if compiled else "estimate",
        stats={"check_s": t1 - t0, "simulate_s": t2 - t1, "simulated": len(cands)},
    )
