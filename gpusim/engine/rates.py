"""What the engine takes from a hardware profile: per-SM pipe rates, bandwidths, latencies.

Pipes of one SM (shared by its co-resident CTAs, processor sharing):

- ``tensor``: matrix-multiply FLOPs at the ``mma.sync`` rate of the storage type
  (fp16/bf16) for ``mma.sync`` kernels (the project's CUDA kernel, FlashAttention-2);
  Hopper's ``wgmma`` kernels get theirs from :mod:`gpusim.engine.wgmma_rates`.
- ``fp32``: FP32 lane-instructions (max, add, mul, compare, FFMA) at half the
  profile's FP32 FLOP rate (an FFMA is two FLOPs and one instruction). With
  fp32 storage the matrix products run on this pipe too (SIMT FFMA, one per
  multiply-add) rather than on TF32 tensor cores: the seeds' fp32 kernels are
  plain FMA loops. Where the profile gives ``simt_mma_flops_per_clk_per_sm``
  (measured: the fp32 kernel's two products alone, operands streaming from
  shared memory, data/h200/2026-11-30_calibration_simt_mm), the products
  take the ``tensor`` lane at that rate instead, as a phase of their own
  before the softmax, as with the tensor cores (``mma_pipe == "simt"``).
- ``sfu``: exponentials (MUFU.EX2 results).
- ``smem``: shared-memory bytes read and written by the warps.
- ``issue``: warp-instructions issued, the profile's issue rate per scheduler times its
  schedulers per SM (one per clock, four per SM, on Ampere, Ada and Hopper):
  the softmax and bookkeeping instructions the tracer counts, and with fp32
  storage the FFMAs of the products too (they share the issue slot).

A step's compute runs in two phases, one after the other (:data:`MMA_PHASE`,
then :data:`ALU_PHASE`): the matrix products (tensor pipe, with their operand
traffic in shared memory), then the softmax and bookkeeping (FP32, SFU and
issue); each phase takes as long as its busiest pipe. Phases do not overlap,
not even across the warps that share a scheduler: measured on the H200 with
data/h200/2026-11-30_calibration_issue (an HMMA loop followed by dependent
FMNMX/FFMA/MUFU/FADD work, 1, 2 and 4 warps per scheduler), the loop takes
0.90-1.0 x the sum of the two phases' pipe times and 1.5-1.7 x their maximum.
With fp32 storage there is one phase (the products are FFMAs on the FP32 pipe).
Then the barriers: each costs the CTA :func:`barrier_cycles` SM cycles (of its
own time, not of the pipes', so co-resident CTAs fill the gap).

Few resident warps: a kernel with fewer than 4 warps per scheduler runs its steps at a
measured fraction of these rates (:func:`step_efficiency`, where the profile has it), as
many as are computing at the time (:mod:`gpusim.engine.active_ctas`).

The SM clock depends on the load: a profile may give ``sm_clock_tensor_load_hz``
(on the H200, 1.80-1.81 GHz measured under mma.sync load against 1.98 GHz in
every other microbenchmark: data/h200/2026-11-30_calibration/README.md). A kernel whose
steps use the tensor pipe runs all its pipes at that clock, any other kernel
(fp32 SIMT, a softmax of its own) at ``sm_clock_hz`` (:meth:`Rates.for_kernel`). Where the
profile also gives ``sm_clock_stream_load_hz`` (the clock under an attention step's whole
load: products, softmax, tiles streaming through the L2; on the H200 the power cap holds it
below the products-only clock, data/h200/2026-12-04_calibration_load_clock), tensor-core
kernels run at that one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpusim.engine.clock import per_tick, ticks
from gpusim.engine.product_groups import products_ticks
from gpusim.engine.step_efficiency import FULL_RATE_WARPS_PER_SCHEDULER, step_efficiency  # noqa: F401
from gpusim.errors import GpusimError
from gpusim.kernel_class import KernelClass, resolve_class
from gpusim.profiles.gaps import barrier_cycles, l2_atomic_cost, launch_overhead_s, queued_launch_s
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule

PIPES = ("tensor", "fp32", "sfu", "smem")
#: The SM's lanes: the pipes, and the schedulers' issue slots.
SM_LANES = (*PIPES, "issue")
#: A lane of every SM in "scheduler ticks" (capacity 1 per tick): each phase of a step
#: also puts its own duration (its busiest pipe's time) on it, so that the MMA phase of
#: one CTA and the softmax phase of another do not overlap on the same SM. That is what
#: data/h200/2026-11-30_calibration_issue measured (0.90-1.0 x the sum, even for CTAs
#: that never synchronise). Shared-memory traffic holds it too, though ldmatrix and an
#: independent softmax of 4 CTAs overlapped in part (620 cycles against 812 for the sum,
#: data/h200/2026-11-30_calibration_smem_overlap): releasing the schedulers during all
#: of it over-credited that overlap (the tuning proof's first choices within 5 % of the
#: measured best fell from 6 to 1 of 10), so the partial overlap is left unmodelled.
SCHED_LANE = "schedulers"
#: Pipes of a step's first phase (matrix products) and of its second (the rest).
MMA_PHASE = ("tensor", "smem")
ALU_PHASE = ("fp32", "sfu", "issue")


@dataclass(frozen=True)
class Rates:
    """Per-SM pipe rates and shared-memory-system figures of one profile for one dtype."""

    sm_count: int
    clock_hz: float
    warp_threads: int  # lane-operations per warp-instruction (the profile's warp size)
    #: "tensor" (fp16/bf16), "fp32" (fp32 storage: SIMT FFMA at the FP32 peak) or "simt"
    #: (fp32 storage, products at the measured SIMT rate on the ``tensor`` lane)
    mma_pipe: str
    pipe_per_s: dict[str, float]  # work units per second per SM
    pipe_per_tick: dict[str, float]
    dram_bytes_per_s: float
    l2_bytes_per_s: float
    dram_latency_ticks: int
    l2_latency_ticks: int
    barrier_ticks: int
    launch_ticks: int
    #: from a kernel's end to the start of the next one of the same run (queued behind it)
    queued_launch_ticks: int
    l2_bytes: int
    l2_line_bytes: int
    barrier_cycles: float = 0.0  # SM cycles per barrier
    #: the SM clock of kernels that use the tensor pipe (``sm_clock_hz`` when not given)
    tensor_clock_hz: float = 0.0
    base_clock_hz: float = 0.0  # the SM clock of every other kernel
    #: shared-memory lane bytes a byte of a tile fill costs (1: as the warps' own accesses)
    smem_fill_cost: float = 1.0
    #: the profile's ``l2_loss_by_depth`` (empty: the L2 is an LRU of ``l2_bytes``)
    l2_loss_curve: tuple[tuple[float, float], ...] = ()
    cta_scatter: float = 0.0  # relative std of identical CTAs' durations (0: in lockstep)
    #: the profile's ``l2_shared_aging`` (None: not measured)
    l2_shared_aging: float | None = None
    #: the profile's ``sm_mate_priority``: ``((CTAs per SM, step s, priority), ...)``
    mate_priority: tuple[tuple[int, float, float], ...] = ()
    #: how long a serial phase holds the SM's schedulers, over its busiest pipe's time at
    #: these rates: the SM core model's cycles for the kernel's compiled loop over the pipe
    #: model's (1: the pipe time itself)
    sched_scale: float = 1.0
    #: share of the shorter of a step's two serial phases (products, softmax) that runs
    #: behind the other (a wgmma kernel's measured softmax overlap; 0: strictly serial)
    phase_overlap: float = 0.0
    #: SM cycles per output byte a CTA spends issuing its stores before it ends (the
    #: profile's measured rate for the class's ``o_store``; 0 where it has none)
    store_cycles_per_byte: float = 0.0
    #: schedulers' capacity with n of R CTAs computing, index n - 1 (engine/active_ctas.py)
    sched_capacity: tuple[float, ...] = ()
    smem_release: float = 0.0  # engine/smem_release.py: the profile's share, where it is on
    product_kappa: float = 0.0  # engine/product_groups.py (0: a phase is its busiest pipe)
    efficiency: float = 1.0  # the step efficiency these rates carry (at_efficiency)
    l2_atomic_cost: float = 1.0  # L2 lane bytes per byte of atomic adds (profiles.gaps)

    def at_clock(self, clock_hz: float) -> Rates:
        """These rates with the SM at ``clock_hz``: per-clock rates and barriers rescaled."""
        if clock_hz == self.clock_hz:
            return self
        per_s = {k: v * clock_hz / self.clock_hz for k, v in self.pipe_per_s.items()}
        return replace(
            self,
            clock_hz=clock_hz,
            pipe_per_s=per_s,
            pipe_per_tick={k: per_tick(v) for k, v in per_s.items()},
            barrier_ticks=ticks(self.barrier_cycles / clock_hz),
        )

    def at_efficiency(self, efficiency: float) -> Rates:
        """These rates with every SM lane at ``efficiency`` of its rate (memory unchanged)."""
        if efficiency == 1.0:
            return self
        per_s = {k: v * efficiency for k, v in self.pipe_per_s.items()}
        return replace(
            self,
            pipe_per_s=per_s,
            pipe_per_tick={k: per_tick(v) for k, v in per_s.items()},
            efficiency=self.efficiency * efficiency,
        )

    def for_kernel(self, uses_tensor: bool) -> Rates:
        """The rates of a kernel that does (or does not) keep the tensor pipe busy."""
        tensor = uses_tensor and self.mma_pipe == "tensor"
        out = self.at_clock(self.tensor_clock_hz if tensor else self.base_clock_hz)
        # Only the products' kernel stores from accumulators (a combine kernel has its own).
        return out if uses_tensor else replace(out, store_cycles_per_byte=0.0)

    def store_ticks(self, nbytes: float) -> int:
        """Engine ticks a CTA spends issuing the stores of ``nbytes`` of output."""
        if not self.store_cycles_per_byte:
            return 0
        return ticks(nbytes * self.store_cycles_per_byte / self.clock_hz)

    def work(
        self,
        mma_flops: float,
        fp32_ops: float,
        exp_ops: float,
        smem_bytes: float,
        smem_fill_bytes: float = 0.0,
    ):
        """The work of a step on each pipe, in that pipe's units, as ``{pipe: amount}``.

        ``smem_fill_bytes`` (part of ``smem_bytes``) are charged at ``smem_fill_cost``.
        """
        out = {"tensor": 0.0, "fp32": float(fp32_ops), "sfu": float(exp_ops)}
        out["smem"] = float(smem_bytes) - (1.0 - self.smem_fill_cost) * float(smem_fill_bytes)
        if self.mma_pipe in ("tensor", "simt"):
            out["tensor"] = float(mma_flops)
        else:
            out["fp32"] += mma_flops / 2  # one FFMA per multiply-add
        return out

    def issue(self, mma_flops: float, instrs: float) -> float:
        """Warp-instructions a step issues besides HMMAs: ``instrs``, plus FFMAs with fp32."""
        if self.mma_pipe in ("tensor", "simt"):  # the measured SIMT rate has its FFMAs
            return float(instrs)
        return float(instrs) + mma_flops / 2 / self.warp_threads

    def phases(self, work: dict[str, float]) -> list[list[str]]:
        """The pipes of each serial phase of a step with ``work`` (pipes without work left out)."""
        # Without tensor work (fp32 storage, or a step with no products) there is one phase.
        serial = self.mma_pipe in ("tensor", "simt") and work.get("tensor", 0) > 0
        groups = [list(MMA_PHASE), list(ALU_PHASE)] if serial else [SM_LANES]
        return [[p for p in g if work.get(p, 0) > 0] for g in groups]

    def serial_parts(self, work: dict[str, float]) -> list[dict[str, float]]:
        """The work of each serial phase of a step, ``{pipe: amount}`` (empty phases left out).

        With ``phase_overlap`` h > 0 and two phases of times a and b, the share
        h min(a, b) / b of the second phase's work moves into the first, where it runs
        beside the products without lengthening them: a + b - h min(a, b) in all.
        """
        parts = [{p: work[p] for p in g} for g in self.phases(work) if g]
        if self.phase_overlap <= 0 or len(parts) != 2:
            return parts
        a, b = (max(v / self.pipe_per_tick[p] for p, v in part.items()) for part in parts)
        if b <= 0:
            return parts
        f = self.phase_overlap * min(a, b) / b
        return [
            {**parts[0], **{p: v * f for p, v in parts[1].items()}},
            {p: v * (1.0 - f) for p, v in parts[1].items()},
        ]

    def step_ticks(self, work: dict[str, float]) -> float:
        """Compute time of ``work`` (barriers aside): its phases' busiest pipes, summed (a
        products phase of grouped products: engine/product_groups.py)."""
        return sum(
            products_ticks({p: v / self.pipe_per_tick[p] for p, v in part.items()},
                           self.product_kappa, self.efficiency)
            for part in self.serial_parts(work)
        )  # fmt: skip

    def peak_per_s(self, pipe: str) -> float:
        """Whole-GPU rate of ``pipe`` per second."""
        return self.pipe_per_s[pipe] * self.sm_count


def issue_per_clk_per_sm(profile: HardwareProfile) -> float:
    """Warp-instructions an SM issues per clock: one scheduler's issue rate times the
    schedulers (NVIDIA's architecture whitepapers: four SM sub-partitions, one each)."""
    return (
        profile.issue_warp_instrs_per_clk_per_scheduler.value * profile.warp_schedulers_per_sm.value
    )


def check_class_rates(profile: HardwareProfile, cls: KernelClass, dtype: str) -> None:
    """A one-line GpusimError where the engine cannot time ``cls`` on ``profile``: no
    silent fallback to another class's rates.

    - ``wgmma`` needs the profile's measured wgmma rates (``wgmma_rate_by_n`` and the clock
      under their load, from ``python -m gpusim.calibrate.wgmma``; a datasheet figure is not
      one); a GPU without wgmma (compute capability below 9.0) has none;
    - producer warps (warp specialization) are timed only for wgmma kernels (a producer
      warpgroup that issues TMA copies): for the other classes the engine has no model of
      their registers and hand-off, so it refuses to time them.
    """
    if cls.product == "wgmma":
        if not profile.compute_capability.startswith("9."):
            raise GpusimError(
                f"--mma wgmma: {profile.display_name} (compute capability "
                f"{profile.compute_capability}) has no wgmma; it is Hopper's (sm_90a) warpgroup "
                f"MMA: use --mma mma"
            )
        table = profile.wgmma_rate_by_n
        keys = (f"{dtype}/smem", f"{dtype}/reg")
        if (
            table is None
            or any(k not in table.value for k in keys)
            or (profile.sm_clock_wgmma_load_hz is None)
            # No silent 0: the overlap share is a measured mechanism, not a default.
            or (profile.wgmma_softmax_overlap_same_warpgroup is None)
            or (profile.wgmma_softmax_overlap_two_warpgroups is None)
        ):
            raise GpusimError(
                f"--mma wgmma: profile {profile.name} lacks the measured wgmma rates "
                f"(wgmma_rate_by_n {' and '.join(keys)}, sm_clock_wgmma_load_hz, the softmax "
                f"overlap shares, from python -m "
                f"gpusim.calibrate.wgmma); the class is described (gpusim count --mma wgmma) "
                f"but not timed"
            )
    if cls.o_store == "fragments" and profile.fragment_store_bytes_per_clk_per_sm is None:
        raise GpusimError(
            f"--o-store fragments: profile {profile.name} lacks "
            f"fragment_store_bytes_per_clk_per_sm (python -m gpusim.calibrate.cta_life measures "
            f"it); --o-store staged times the output's bytes only"
        )
    if cls.producer_warps and cls.product != "wgmma":
        raise GpusimError(
            f"--producer-warps {cls.producer_warps}: the engine times warp-specialized "
            f"kernels only with --mma wgmma (their mix is described: gpusim count "
            f"--producer-warps N)"
        )


def rates_for(
    profile: HardwareProfile,
    dtype: str,
    warps: int = 4,
    *,
    schedule: Schedule | None = None,
    head_dim: int | None = None,
) -> Rates:
    """The engine's rates for ``profile``, storage type ``dtype``, ``warps`` warps per CTA;
    ``schedule`` (its implementation class) is checked to be one the profile can time; a
    wgmma schedule's rates also depend on ``head_dim``
    (:func:`gpusim.engine.wgmma_rates.wgmma_kernel_rates`)."""
    if schedule is None:
        return _pipe_rates(profile, dtype, warps)
    cls = resolve_class(schedule, dtype)
    check_class_rates(profile, cls, dtype)
    if cls.product == "wgmma":
        if head_dim is None:
            raise GpusimError("rates_for: a wgmma schedule's rates need the head dim")
        from gpusim.engine.wgmma_rates import wgmma_kernel_rates  # it builds on Rates

        out = wgmma_kernel_rates(
            _pipe_rates(profile, dtype, warps), profile, dtype, schedule, head_dim, cls
        )
    else:
        out = _pipe_rates(profile, dtype, warps)
    # fragments: check_class_rates made sure the profile has the rate; staged: where measured
    frag = cls.o_store == "fragments"
    rate = getattr(profile, f"{'fragment' if frag else 'staged'}_store_bytes_per_clk_per_sm")
    return out if rate is None else replace(out, store_cycles_per_byte=1.0 / rate.value)


def _pipe_rates(profile: HardwareProfile, dtype: str, warps: int) -> Rates:
    """The rates of the project's class for ``dtype`` (the pipes at the clock under load)."""
    base_clk = profile.sm_clock_hz.value
    # The attention kernels' tensor load also streams tiles: its own measured clock first.
    loaded = profile.sm_clock_stream_load_hz or profile.sm_clock_tensor_load_hz
    tensor_clk = loaded.value if loaded is not None else base_clk
    # Until told which kernel, the rates of the dtype's matrix-product pipe: tensor-core
    # kernels run at the clock under tensor load (Rates.for_kernel picks per kernel).
    clk = tensor_clk if dtype in ("fp16", "bf16") else base_clk
    simt = profile.simt_mma_flops_per_clk_per_sm
    if dtype in ("fp16", "bf16"):
        mma_pipe = "tensor"
        tensor_per_clk = getattr(profile.mma_sync_flops_per_clk_per_sm, dtype).value
    elif simt is not None:
        mma_pipe = "simt"
        tensor_per_clk = simt.value
    else:
        mma_pipe = "fp32"
        tensor_per_clk = profile.mma_sync_flops_per_clk_per_sm.fp16.value  # unused by fp32 runs
    per_s = {
        "tensor": tensor_per_clk * clk,
        "fp32": profile.fp32_flops_per_clk_per_sm.value / 2 * clk,
        "sfu": profile.sfu_exp_per_clk_per_sm.value * clk,
        "smem": profile.smem_bandwidth_bytes_per_clk_per_sm.value * clk,
        "issue": issue_per_clk_per_sm(profile) * clk,
    }
    return Rates(
        sm_count=profile.sm_count.value,
        clock_hz=clk,
        warp_threads=profile.warp_size_threads.value,
        mma_pipe=mma_pipe,
        pipe_per_s=per_s,
        pipe_per_tick={k: per_tick(v) for k, v in per_s.items()},
        dram_bytes_per_s=profile.dram_bandwidth_bytes_per_s.value,
        l2_bytes_per_s=profile.l2_bandwidth_bytes_per_s.value,
        dram_latency_ticks=ticks(profile.dram_latency_s.value),
        l2_latency_ticks=ticks(profile.l2_latency_s.value),
        barrier_ticks=ticks(barrier_cycles(profile, warps) / clk),
        launch_ticks=ticks(launch_overhead_s(profile)),
        queued_launch_ticks=ticks(queued_launch_s(profile)),
        l2_bytes=profile.l2_bytes.value,
        l2_line_bytes=profile.l2_line_bytes.value,
        barrier_cycles=barrier_cycles(profile, warps),
        tensor_clock_hz=tensor_clk,
        base_clock_hz=base_clk,
        smem_fill_cost=fill.value if (fill := profile.smem_fill_cost_per_byte) else 1.0,
        l2_loss_curve=tuple(map(tuple, lc.value)) if (lc := profile.l2_loss_by_depth) else (),
        cta_scatter=sc.value if (sc := profile.cta_duration_scatter) else 0.0,
        l2_shared_aging=ag.value if (ag := profile.l2_shared_aging) else None,
        mate_priority=tuple(map(tuple, mp.value)) if (mp := profile.sm_mate_priority) else (),
        l2_atomic_cost=l2_atomic_cost(profile),
    )
