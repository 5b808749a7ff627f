"""The public functions: simulate, count, tune, verify and load_profile.

Each takes the algorithm by name (it is given here only: a :class:`~gpusim.schedule.Schedule`
holds tiles and mapping, not which algorithm they are for), a
:class:`~gpusim.workload.Workload` and a profile (a shipped name, a YAML/JSON path or a
:class:`~gpusim.profiles.HardwareProfile`). A schedule left out is chosen by the same default
rule the CLI uses, and the result says which one ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpusim.api.inputs import check_schedule_fits, resolve_schedule
from gpusim.api.names import algorithm_named, profile_named
from gpusim.counting import Counts
from gpusim.engine.result import SimResult
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.description import describe
from gpusim.profiles import DEFAULT_PROFILE, HardwareProfile
from gpusim.profiles.sm_count import with_sm_count
from gpusim.schedule import Schedule
from gpusim.tuning.tuner import TuneResult
from gpusim.workload import Workload

ProfileLike = str | Path | HardwareProfile

if TYPE_CHECKING:  # numeric_verify imports NumPy: only verify() needs it at run time
    from gpusim.numeric_verify import VerifyResult


def _workload(workload: Workload) -> Workload:
    if not isinstance(workload, Workload):
        raise GpusimError(f"workload must be a gpusim.Workload, not {type(workload).__name__}")
    return workload


def _inputs(
    algorithm: str,
    workload: Workload,
    schedule: Schedule | None,
    profile: ProfileLike,
    sm_count: int | None = None,
) -> tuple[Workload, Schedule, HardwareProfile]:
    """Validated inputs, the schedule defaulted when None, checked to fit one CTA per SM;
    the profile with ``sm_count`` SMs when given."""
    alg = algorithm_named(algorithm)
    hw = with_sm_count(profile_named(profile), sm_count)
    w = _workload(workload)
    if schedule is None:
        schedule, _ = resolve_schedule(algorithm, w, hw, {})
    elif not isinstance(schedule, Schedule):
        raise GpusimError(f"schedule must be a gpusim.Schedule, not {type(schedule).__name__}")
    describe(w, schedule)  # its implementation class exists for the dtype
    alg.check(w, schedule)
    check_schedule_fits(algorithm, w, schedule, hw)
    return w, schedule, hw


def simulate(
    algorithm: str,
    workload: Workload,
    schedule: Schedule | None = None,
    profile: ProfileLike = DEFAULT_PROFILE,
    *,
    detail: str = "auto",
    trace_path: str | Path | None = None,
    processes: Sequence[Callable[..., Any]] | None = None,
    sm_count: int | None = None,
    cubin: str | Path | None = None,
    sass: str | Path | None = None,
    kernel: str | None = None,
    res_usage: str | Path | None = None,
    binary_timing: str = "replay",
    dram_model: str = "tile-l2",
    footprints: str = "compiled",
) -> SimResult:
    """Predict runtime, DRAM and SM-to-L2 traffic, occupancy and the bound of ``algorithm``.

    ``detail`` is ``"auto"``, ``"aggregated"`` or ``"full"`` (as ``gpusim simulate --detail``);
    ``trace_path`` also writes the timeline as a Chrome trace; ``processes`` are SimPy process
    functions of your own, started beside the model's in the same ``simpy.Environment`` (the
    engine's hook, :func:`gpusim.engine.simulate.simulate`); ``sm_count`` runs it on that many
    of the profile's SMs (:func:`gpusim.profiles.sm_count.with_sm_count`: a green-context
    partition; memory system, L2 and clocks unchanged; ``result.sm_count`` says how many).
    ``result.schedule`` is the schedule that ran. Example::

        w = gpusim.Workload(batch=4, heads=16, seq_len_q=4096, seq_len_k=4096, head_dim=128)
        r = gpusim.simulate("flash2", w, gpusim.Schedule(block_m=128, block_n=64), "h200-sxm")
        r.runtime_s, r.dram_read_bytes, r.bound

    ``cubin`` (any file cuobjdump reads) or ``sass`` (a ``cuobjdump -sass`` dump, with
    ``res_usage``, its ``-res-usage`` text, for the registers) and ``kernel`` (a mangled name,
    or part of the demangled one): the SM core model replays that kernel's main loop for the
    algorithm's tensor-core kernel (a profile with ``sass_core_cycles``, e.g.
    ``h200-sxm-core``); ``result.kernels[i].timing_model`` is ``"sass-replay"`` and
    ``timing_source`` names the binary. What it cannot replay is a GpusimError.
    ``binary_timing="counts"`` times that kernel with the pipe model instead, its steady step
    issuing the binary's own warp-instructions (``result.schedule.step_issue_per_warp``; any
    profile), with the binary's registers: a forward loop with ``pass_="fwd"``, a backward
    loop with ``"bwd"`` (``"fwd+bwd"`` has two loops: a GpusimError).

    ``dram_model="kv-trace"`` takes the DRAM bytes from the K/V trace of record instead of
    the engine's tile L2 (:mod:`gpusim.api.dram_model`: flash2's forward kernel with one
    split on a profile that measured its fields; anything else is a GpusimError);
    ``result.dram_model`` says which gave them. ``footprints="compiled"`` (the default, as
    :func:`tune`) takes the registers per thread, and so the occupancy, from ptxas's report
    for the schedule's CUDA instance where the build recorded it (:mod:`gpusim.api.registers`);
    ``"estimate"`` from the algorithm's formula; ``result.registers_from`` says which.
    """
    from gpusim.api.dram_model import apply_kv_trace, check_dram_model, check_kv_trace
    from gpusim.engine.simulate import simulate as engine_simulate
    from gpusim.kernel_catalog.compiled_chips import record_registers, simulation_chips

    try:
        check_dram_model(dram_model)
    except ValueError as e:
        raise GpusimError(str(e)) from None
    w, s, hw = _inputs(algorithm, workload, schedule, profile, sm_count)
    if dram_model == "kv-trace":
        try:
            check_kv_trace(algorithm, s, hw)
        except ValueError as e:
            raise GpusimError(f"DRAM model kv-trace: {e}") from None
    binary = None
    if cubin is not None or sass is not None or kernel is not None:
        from gpusim.kernels.binary_dump import load_binary_loop

        binary = load_binary_loop(kernel or "", cubin=cubin, sass=sass, res_usage=res_usage)
    # the registers ptxas gave the schedule's CUDA instance, where recorded (not with a binary:
    # its own registers apply)
    chips, regs_from = simulation_chips(algorithm, w, s, hw, footprints, binary)
    r = engine_simulate(
        algorithm,
        w,
        s,
        hw,
        trace_path=trace_path,
        detail=detail,
        processes=processes,
        binary=binary,
        binary_timing=binary_timing,
        on_chip=chips or None,
    )
    record_registers(r, chips, regs_from)
    if dram_model == "kv-trace":
        try:
            apply_kv_trace(r, w, hw)
        except ValueError as e:
            raise GpusimError(f"DRAM model kv-trace: {e}") from None
    return r


def count(
    algorithm: str,
    workload: Workload,
    schedule: Schedule | None = None,
    profile: ProfileLike = DEFAULT_PROFILE,
    *,
    sm_count: int | None = None,
) -> Counts:
    """FLOPs, SM-to-L2 bytes by tensor, and on-chip needs of ``algorithm``, without timing.

    ``profile`` only sets the default schedule's shared-memory limit when ``schedule`` is
    None (``sm_count``, as :func:`simulate` takes it, is checked the same way). Example:
    ``gpusim.count("flash1", gpusim.Workload(seq_len_q=1024, seq_len_k=1024))``.
    """
    from gpusim.counting import count as count_traced

    w, s, _ = _inputs(algorithm, workload, schedule, profile, sm_count)
    return count_traced(algorithm, w, s)


def tune(
    workload: Workload,
    profile: ProfileLike = DEFAULT_PROFILE,
    *,
    algorithm: str = "flash2",
    sram_kib: float | None = None,
    fixed: dict[str, int] | None = None,
    footprints: str = "compiled",
    jobs: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
    sm_count: int | None = None,
    kernel_class: dict[str, Any] | None = None,
    tile_space: dict[str, tuple[int, ...]] | None = None,
) -> TuneResult:
    """Rank every schedule of ``algorithm`` on ``workload`` by predicted runtime, best first.

    ``sram_kib`` is the shared memory one CTA may use (default: the profile's), ``fixed`` pins
    schedule fields (``{"block_m": 128}``), ``footprints`` is ``"compiled"`` (ptxas's
    registers) or ``"estimate"``, ``jobs`` the processes (None: one per core);
    ``on_done(done, total)`` hears of each launch simulated (progress); ``sm_count`` ranks
    them on that many of the profile's SMs (as :func:`simulate`); ``kernel_class``
    (``{"mma": "wgmma"}`` ...) is the implementation class to tune for: the search is over the
    project's compiled kernels, so any class but theirs is a one-line error. Example:
    ``gpusim.tune(w, "h200-sxm", sram_kib=100).candidates[0].schedule``.
    """
    from gpusim.tuning.space import SINGLE_QUERY_ALGORITHMS
    from gpusim.tuning.sram import sram_kib_to_bytes
    from gpusim.tuning.tuner import tune as rank_schedules

    alg = algorithm_named(algorithm)
    hw = with_sm_count(profile_named(profile), sm_count)
    w = _workload(workload)
    # The algorithm's own limits (causal support ...) on a placeholder: the search picks tiles.
    placeholder = Schedule(block_m=1 if algorithm in SINGLE_QUERY_ALGORITHMS else 64)
    alg.check(w, placeholder)
    cls = {k: v for k, v in (kernel_class or {}).items() if v is not None}
    if cls.get("mma") == "wgmma":
        # wgmma tiles are searched over their own space (gpusim.tuning.wgmma_space): the
        # class is checked on a schedule of that space's shape.
        if algorithm != "flash2":
            raise GpusimError(f"tune --mma wgmma models flash2's loop; not {algorithm}")
        cls.setdefault("tile_copy", "tma")
        cls.setdefault("producer_warps", 4)
        placeholder = Schedule(block_m=128, block_n=128, warps=8, stages=2)
        desc = describe(w, placeholder.model_copy(update=cls))
        from gpusim.engine.rates import check_class_rates

        check_class_rates(hw, desc.kernel_class, w.dtype)
    else:
        _check_tuned_class(w, hw, placeholder, cls)
    sram_bytes = None if sram_kib is None else sram_kib_to_bytes(sram_kib)
    return rank_schedules(
        algorithm,
        w,
        hw,
        sram_bytes,
        fixed=fixed,
        jobs=jobs,
        footprints=footprints,
        on_done=on_done,
        kernel_class=cls,
        tile_space=tile_space,
    )


def _check_tuned_class(
    w: Workload, hw: HardwareProfile, placeholder: Schedule, given: dict[str, Any]
) -> None:
    """The class ``gpusim tune`` was asked for exists, can be timed on ``hw``, and is the
    class of the kernels the tuner searches (the project's: cp.async, no producer warps)."""
    from gpusim.engine.rates import check_class_rates

    given = {k: v for k, v in given.items() if v is not None}
    try:
        sched = placeholder.model_copy(update=given)
        Schedule.model_validate(sched.model_dump())
    except ValueError as e:
        raise GpusimError(f"kernel class {given}: {e}".splitlines()[0]) from None
    desc = describe(w, sched)
    check_class_rates(hw, desc.kernel_class, w.dtype)
    if not desc.kernel_class.is_project_kernel or desc.kernel_class.o_store != "staged":
        raise GpusimError(
            f"tune searches the project's compiled kernels ({desc.kernel_class.label()} is "
            f"not one of them: they use cp.async copies, no producer warps and stage O through "
            f"shared memory)"
        )


def verify(algorithm: str, *, seed: int = 0, pass_: str = "fwd") -> VerifyResult:
    """Run ``algorithm``'s numeric interpreter on awkward shapes against a float64 reference;
    with ``pass_`` ``bwd`` or ``fwd+bwd``, its backward pass (a training step: the gradients
    dQ, dK, dV against float64's; flash2 and standard).

    Example: ``gpusim.verify("flash2").passed`` (fp64 error within
    :data:`gpusim.numeric_verify.FP64_TOLERANCE` and no NaN).
    """
    from gpusim.numeric_verify import VerifyResult, verify_algorithm, verify_backward

    alg = algorithm_named(algorithm)
    if pass_ == "fwd":
        return VerifyResult.from_record(verify_algorithm(alg, seed))
    if pass_ not in ("bwd", "fwd+bwd"):
        raise GpusimError(f"pass {pass_!r}: one of fwd, bwd, fwd+bwd")
    if not alg.supports_backward:
        raise GpusimError(
            f"algorithm {alg.name!r} has no backward pass; flash2 and standard have one"
        )
    return VerifyResult.from_record(verify_backward(alg, seed))


def load_profile(profile: ProfileLike) -> HardwareProfile:
    """The validated hardware profile of a shipped name or a YAML/JSON file.

    Example: ``gpusim.load_profile("a100-sxm4-80gb").sm_count.value``.
    """
    return profile_named(profile)
