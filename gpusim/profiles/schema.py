"""The hardware profile schema: every number with its unit in the name and its source.

A profile is data (``hardware_profiles/*.yaml``) validated strictly: unknown keys
and non-positive numbers are errors. Each quantity is a :class:`Sourced` value,
so that no number exists without saying where it came from.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Each quantity's plausible range (re-exported: the fuzz tests and explore read it here).
from gpusim.profiles.plausible import PLAUSIBLE

SCHEMA_VERSION = 1

T = TypeVar("T", int, float)


class Sourced(BaseModel, Generic[T]):
    """A positive number and where it comes from (datasheet, guide, paper, microbenchmark)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    value: T = Field(gt=0)
    source: str = Field(min_length=3)
    note: str | None = None


class SourcedFraction(BaseModel):
    """A fraction in [0, 1] and where it comes from (a measured share that may be none)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    value: float = Field(ge=0, le=1)
    source: str = Field(min_length=3)
    note: str | None = None


class SourcedList(BaseModel):
    """A list of positive integers with a source (e.g. shared-memory carve-out steps)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: list[int] = Field(min_length=1)
    source: str = Field(min_length=3)
    note: str | None = None

    @field_validator("value")
    @classmethod
    def _positive(cls, v: list[int]) -> list[int]:
        if any(x <= 0 for x in v):
            raise ValueError("every entry must be positive")
        return v


class SourcedCurve(BaseModel):
    """A measured curve of shares: ``[[x, share], ...]``, x positive and rising, shares in
    [0, 1] and never falling (e.g. the share of a set the L2 has lost at each depth)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    value: list[tuple[float, float]] = Field(min_length=2)
    source: str = Field(min_length=3)
    note: str | None = None

    @field_validator("value")
    @classmethod
    def _shape(cls, v: list[tuple[float, float]]) -> list[tuple[float, float]]:
        xs, ys = [p[0] for p in v], [p[1] for p in v]
        if xs[0] <= 0 or any(b <= a for a, b in pairwise(xs)):
            raise ValueError("the points' x must be positive and rising")
        if any(not 0 <= y <= 1 for y in ys) or any(b < a for a, b in pairwise(ys)):
            raise ValueError("the shares must lie in [0, 1] and never fall")
        return v


class SourcedRateTable(BaseModel):
    """Measured rates by size, per key: ``{key: [[n, rate], ...]}``, n positive and rising,
    rates positive (e.g. wgmma FLOP per clock per SM by N, per input type and A source)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    value: dict[str, list[tuple[int, float]]] = Field(min_length=1)
    source: str = Field(min_length=3)
    note: str | None = None

    @field_validator("value")
    @classmethod
    def _shape(cls, v: dict[str, list[tuple[int, float]]]) -> dict[str, list[tuple[int, float]]]:
        for key, rows in v.items():
            ns = [r[0] for r in rows]
            if not rows or ns[0] <= 0 or any(b <= a for a, b in pairwise(ns)):
                raise ValueError(f"{key}: the sizes must be positive and rising")
            if any(r[1] <= 0 for r in rows):
                raise ValueError(f"{key}: every rate must be positive")
        return v


#: The SM core's cycle counts a ``sass_core_cycles`` field holds (gpusim/engine/core_model.py).
CORE_CYCLE_KEYS = (
    "hmma_pipe", "hmma_accumulate", "hmma_result", "ldsm_latency", "shfl_latency",
    "shfl_pipe", "mufu_latency", "mufu_pipe", "alu_pipe", "fma_pipe", "imad_pipe",
    "barrier_4_warps", "barrier_8_warps",
)  # fmt: skip
#: Cycle counts a ``sass_core_cycles`` field may hold besides them: a local-memory access's
#: load-to-use latency and the cycles it holds the SM's L1 data pipe (python -m
#: gpusim.calibrate.local_mem); without them the core model times local accesses as integer
#: instructions. And ``co_resident_phases``, not a cycle count: the relative phases of an SM's
#: co-resident CTAs the replay averages over; 1 replays them in one phase (python -m
#: gpusim.calibrate.cta_phase writes it where the SM's throughput does not move with the offset
#: its CTAs enter at; held-out set 19 rejected it for h200-sxm-core); without it the replay
#: averages over 16 (gpusim.engine.core_model.PHASES).
OPTIONAL_CORE_CYCLE_KEYS = ("local_latency", "local_access", "co_resident_phases")
#: Plausible SM cycles for one of them: far wider than any GPU's.
CORE_CYCLES_RANGE = (0.25, 10_000.0)


class SourcedMatePriority(BaseModel):
    """SM-mates' priority by age rank (:mod:`gpusim.engine.sm_mates`) against a CTA's tile
    step: ``[[CTAs per SM, step seconds, priority], ...]``, CTAs per SM at least 2, steps
    positive, priorities in (0, 1]; each CTAs-per-SM count's steps rising."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    value: list[tuple[int, float, float]] = Field(min_length=1)
    source: str = Field(min_length=3)
    note: str | None = None

    @field_validator("value")
    @classmethod
    def _shape(cls, v: list[tuple[int, float, float]]) -> list[tuple[int, float, float]]:
        last: dict[int, float] = {}
        for c, step, q in v:
            if c < 2 or not 0 < step < 1 or not 0 < q <= 1:
                raise ValueError(
                    f"[{c}, {step:g}, {q:g}]: need CTAs/SM >= 2, 0 < step < 1 s, 0 < q <= 1"
                )
            if step <= last.get(c, 0.0):
                raise ValueError(f"{c} CTAs per SM: steps must rise")
            last[c] = step
        return v


class SourcedCycles(BaseModel):
    """The SM core's cycle counts (latencies, pipe occupancies) and where they come from."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    value: dict[str, float]
    source: str = Field(min_length=3)
    note: str | None = None

    @field_validator("value")
    @classmethod
    def _known_and_plausible(cls, v: dict[str, float]) -> dict[str, float]:
        known = set(CORE_CYCLE_KEYS) | set(OPTIONAL_CORE_CYCLE_KEYS)
        if not set(CORE_CYCLE_KEYS) <= set(v) <= known:
            missing, extra = set(CORE_CYCLE_KEYS) - set(v), set(v) - known
            raise ValueError(f"cycle counts missing {sorted(missing)}, unknown {sorted(extra)}")
        lo, hi = CORE_CYCLES_RANGE
        phases = v.get("co_resident_phases")
        if phases is not None and (phases != int(phases) or not 1 <= phases <= 64):
            raise ValueError(f"co_resident_phases: {phases:g} is not a whole number from 1 to 64")
        for k, x in v.items():
            if not lo <= x <= hi:
                raise ValueError(f"{k}: {x:g} cycles is outside the plausible {lo:g} .. {hi:g}")
        return v


class DtypeRates(BaseModel):
    """Dense tensor-core throughput per SM per clock, in FLOP (2 per multiply-add), by input type.

    Rates are for FP32 accumulation (what attention kernels use); GeForce parts run
    FP16-accumulate at twice the rate, which a ``note`` may mention.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    fp16: Sourced[float]
    bf16: Sourced[float]
    tf32: Sourced[float] | None = None


def _implausible(name: str, field: BaseModel | None) -> str | None:
    """``field.path: message`` if a quantity of ``PLAUSIBLE`` is out of its range."""
    lo, hi = PLAUSIBLE[name]
    items = [("", field)] if isinstance(field, Sourced | SourcedFraction) else []
    if isinstance(field, DtypeRates):
        items = [(f".{k}", v) for k, v in field if v is not None]
    for sub, q in items:
        if not lo <= q.value <= hi:
            return f"{name}{sub}.value: {q.value:g} is outside the plausible range {lo:g} .. {hi:g}"
    return None


class HardwareProfile(BaseModel):
    """One GPU, as the engine needs it.

    Shared memory and register sizes follow the CUDA occupancy calculator's model:
    a CTA's shared memory is rounded up to ``smem_alloc_unit_bytes`` and charged
    ``smem_reserved_per_block_bytes`` more; registers are allocated per warp in
    units of ``register_alloc_unit_per_warp`` and warps per SM in multiples of
    ``warp_alloc_granularity`` (one per SM sub-partition).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    display_name: str
    architecture: str
    compute_capability: str = Field(pattern=r"^\d+\.\d+$")
    note: str | None = None  # how the profile was put together, caveats

    sm_count: Sourced[int]
    sm_clock_hz: Sourced[float]
    #: the SM clock while the tensor cores are busy, where it differs (Hopper lowers it under
    #: HMMA load); kernels whose steps use the tensor pipe run at it, others at ``sm_clock_hz``
    sm_clock_tensor_load_hz: Sourced[float] | None = None
    #: the SM clock under an attention step's whole load (products, softmax and tiles
    #: streaming through the L2 into shared memory), where measured: the H200 holds its power
    #: cap there below the products-only clock; tensor-core kernels run at it
    sm_clock_stream_load_hz: Sourced[float] | None = None
    #: the SM clock under sustained wgmma load (seconds of back-to-back products), where measured
    sm_clock_wgmma_load_hz: Sourced[float] | None = None
    #: the SM clock of ms-long wgmma launches each after an L2 flush (the regime benchmarks and
    #: this project's validations time kernels in), where measured: wgmma kernels run at it
    sm_clock_wgmma_burst_hz: Sourced[float] | None = None

    smem_per_sm_bytes: Sourced[int]
    smem_per_block_bytes: Sourced[int]  # the opt-in maximum for one CTA
    smem_reserved_per_block_bytes: Sourced[int]  # the driver's per-CTA reservation
    smem_carveout_steps_kib: SourcedList
    smem_alloc_unit_bytes: Sourced[int]  # a CTA's shared memory is rounded up to this
    smem_bandwidth_bytes_per_clk_per_sm: Sourced[int]

    registers_per_sm: Sourced[int]
    registers_per_thread_max: Sourced[int]
    register_alloc_unit_per_warp: Sourced[int]  # allocation granularity, registers per warp
    warp_alloc_granularity: Sourced[int]  # warps per SM are allocated in multiples of this
    max_warps_per_sm: Sourced[int]
    max_threads_per_block: Sourced[int]
    max_blocks_per_sm: Sourced[int]
    warp_size_threads: Sourced[int]  # threads per warp: lane-operations per warp-instruction
    #: SM sub-partitions, each with one warp scheduler; warp ``i`` of an SM sits on ``i % n``
    warp_schedulers_per_sm: Sourced[int]
    issue_warp_instrs_per_clk_per_scheduler: Sourced[float]  # issue slots of one scheduler
    #: one ``__syncthreads()`` costs a CTA of ``w`` warps ``base + per_warp x w`` SM cycles;
    #: where no measurement of this GPU exists the profile leaves both out and the engine
    #: says so (:mod:`gpusim.profiles.gaps`) rather than borrow another GPU's
    barrier_base_cycles: Sourced[float] | None = None
    barrier_cycles_per_warp: Sourced[float] | None = None

    l2_bytes: Sourced[int]
    l2_bandwidth_bytes_per_s: Sourced[float]
    #: bytes per second of fp32 atomic adds (RED) the L2 takes from every SM, added from an
    #: MMA accumulator's register layout, where measured (``python -m
    #: gpusim.calibrate.l2_atomics``): a backward kernel's dQ accumulation; without it atomic
    #: adds take ``l2_bandwidth_bytes_per_s`` like any write
    l2_atomic_add_bytes_per_s: Sourced[float] | None = None
    l2_latency_s: Sourced[float]
    l2_line_bytes: Sourced[int]  # the unit the L2 keeps or loses
    #: L2-to-SM bytes per requested byte of a kernel that copies its tiles with 16-byte
    #: cp.async into shared-memory rows padded by 16 bytes (``Kernel.copies_into_padded_rows``),
    #: where measured (an Nsight Compute count on this GPU)
    l2_fetch_bytes_per_byte_padded_row_copy: Sourced[float] | None = None

    dram_bytes: Sourced[int]
    dram_bandwidth_bytes_per_s: Sourced[float]
    dram_latency_s: Sourced[float]

    mma_sync_flops_per_clk_per_sm: DtypeRates  # mma.sync (Ampere-style) tensor-core rate
    wgmma_flops_per_clk_per_sm: DtypeRates | None = None  # Hopper warpgroup MMA, where it exists
    #: wgmma m64nNk16 FLOP per clock per SM by N, keys ``{dtype}/{smem|reg}`` (where A comes
    #: from), where measured: the engine times a wgmma kernel's products at these
    wgmma_rate_by_n: SourcedRateTable | None = None
    #: share of the shorter of (products, softmax) hidden when one warpgroup does both
    #: (issue products, softmax, wait), another warpgroup does the softmax, or two warpgroups
    #: each do both, where measured: (T_products + T_softmax - T_both) / min of the two
    wgmma_softmax_overlap_same_warpgroup: SourcedFraction | None = None
    wgmma_softmax_overlap_other_warpgroup: SourcedFraction | None = None
    wgmma_softmax_overlap_two_warpgroups: SourcedFraction | None = None
    #: cycles per instruction of one consumer warp's softmax stream with 2 (3) consumer
    #: warpgroups, where measured (gpusim.calibrate.wgmma_pingpong): the step of such a
    #: kernel is then max(T, T / n + I x c) (engine/wgmma_rates.pingpong_rates)
    wgmma_softmax_cycles_per_instr_2_warpgroups: Sourced[float] | None = None
    wgmma_softmax_cycles_per_instr_3_warpgroups: Sourced[float] | None = None
    #: the same of one consumer warpgroup alone on its SM (gpusim.calibrate.wgmma_step_one):
    #: its step is then max(T, softmax phase, T + I x c)
    wgmma_softmax_cycles_per_instr_1_warpgroups: Sourced[float] | None = None
    #: the same at each tile that microbenchmark measured, ``{"{d}": [[Bc, cycles], ...]}``:
    #: a one-warpgroup kernel of such a tile takes its own c, any other the mean field
    #: (adopted by wgmma decode set 4, reports/kernels/wgmma/decode_set4)
    wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile: SourcedRateTable | None = None
    #: the same at single tiles, ``{"{warpgroups}/{d}": [[Bc, cycles], ...]}``, where a
    #: wgmma_step record has rows beyond the fields' shapes (gpusim.calibrate.wgmma_pingpong:
    #: a kernel of such a tile would take its own value; the engine reads only the fields)
    wgmma_softmax_cycles_per_instr_by_block_n: SourcedRateTable | None = None
    fp32_flops_per_clk_per_sm: Sourced[float]  # FFMA counts 2
    #: matrix products on the CUDA cores with their operands streaming from shared memory
    #: (an fp32 FlashAttention tile's S = Q K^T and P V, FFMA counts 2), where measured;
    #: without it fp32 products run at the FP32 peak and share the issue slots
    simt_mma_flops_per_clk_per_sm: Sourced[float] | None = None
    #: a step's throughput with 1 (2) resident warps per scheduler over its throughput with 4
    #: or more, where measured: few warps expose latencies (the pipe rates are a full SM's)
    step_efficiency_1_warp_per_scheduler: Sourced[float] | None = None
    step_efficiency_2_warps_per_scheduler: Sourced[float] | None = None
    step_efficiency_by_cta_warps: SourcedRateTable | None = None  # by launch: cta_grouping.py
    grouped_products_kappa_by_cta_warps: SourcedRateTable | None = None  # product_groups.py
    #: shared-memory bandwidth one byte of a tile fill (cp.async from L2 into shared memory)
    #: takes from the warps' own reads, in bytes of reads, where measured (1 without)
    smem_fill_cost_per_byte: SourcedFraction | None = None
    #: share of a products phase's shared-memory excess that frees the schedulers (smem_release)
    smem_sched_release_share: SourcedFraction | None = None
    #: bytes per SM clock an SM writes storing 16-bit values from an MMA accumulator's
    #: register layout (4-byte stores, 16 contiguous bytes per row and instruction), where
    #: measured: what a kernel with ``o_store`` = ``fragments`` pays for its output block
    fragment_store_bytes_per_clk_per_sm: Sourced[float] | None = None
    staged_store_bytes_per_clk_per_sm: Sourced[float] | None = None  # the same, ``staged``
    #: bytes per second a read-only stream of cp.async tile copies reaches from DRAM, where
    #: measured (``dram_bandwidth_bytes_per_s`` is a copy's, reads and writes together)
    dram_read_bandwidth_bytes_per_s: Sourced[float] | None = None
    #: a step's tile stream's law, where measured (:mod:`gpusim.engine.stream_latency`)
    tile_stream_latency_s: Sourced[float] | None = None
    tile_stream_ingress_bytes_per_s: Sourced[float] | None = None
    tile_stream_knee_power: Sourced[float] | None = None
    #: share of a set every SM reads that the L2 has lost at each depth (bytes brought in since
    #: it was last touched), ``[[depth, share]]``; without it an LRU edge at ``l2_bytes``
    l2_loss_by_depth: SourcedCurve | None = None
    #: relative standard deviation of identical CTAs' durations, where measured: CTAs with the
    #: same work drift apart wave by wave (without it the engine keeps them in lockstep)
    cta_duration_scatter: SourcedFraction | None = None
    #: read-once bytes one byte of K/V counts for in the L2's depth (K/V read by many SMs ages
    #: a line faster than ``l2_loss_by_depth``'s read-once traffic), where measured
    l2_shared_aging: Sourced[float] | None = None
    #: how CTAs sharing an SM share it by age rank, by tile step (:mod:`~.engine.sm_mates`)
    sm_mate_priority: SourcedMatePriority | None = None
    #: first wave: younger/older mate's time, {"CTAs/SM": [[rows/warp, ratio]]} (mate_age.py)
    sm_mate_first_wave_ratio: SourcedRateTable | None = None
    #: share of the DRAM bandwidth reached with each amount of read bytes in flight per SM
    #: (loads that wait for one another, as a loop of a few loads per trip does), where
    #: measured: ``[[bytes in flight per SM, share], ...]``
    dram_share_by_inflight: SourcedCurve | None = None
    #: the SM core's cycles as one warp sees them (result latencies, pipe cycles per
    #: warp-instruction, barriers), where measured: with them the tensor-core kernel's compiled
    #: loop is replayed (:mod:`gpusim.engine.core_model`) instead of the step efficiencies
    sass_core_cycles: SourcedCycles | None = None
    sfu_exp_per_clk_per_sm: Sourced[float]  # MUFU.EX2 results

    #: host and driver time of one launch as CUDA events see it, where measured
    kernel_launch_overhead_s: Sourced[float] | None = None
    #: from a kernel's end to the start of the next, queued behind it (split-KV's combine)
    kernel_queued_launch_s: Sourced[float] | None = None

    @model_validator(mode="after")
    def _consistent(self) -> HardwareProfile:
        # Messages name the field first, so the loader can prefix the file name.
        if (self.barrier_base_cycles is None) != (self.barrier_cycles_per_warp is None):
            raise ValueError(
                "barrier_cycles_per_warp: give both barrier fields (one fit) or neither"
            )
        for name in PLAUSIBLE:
            problem = _implausible(name, getattr(self, name))
            if problem:
                raise ValueError(problem)
        per_sm, per_block = self.smem_per_sm_bytes.value, self.smem_per_block_bytes.value
        reserved = self.smem_reserved_per_block_bytes.value
        if per_block + reserved > per_sm:
            raise ValueError(
                f"smem_per_block_bytes.value: {per_block} plus the {reserved} B reservation "
                f"exceeds smem_per_sm_bytes ({per_sm})"
            )
        steps = self.smem_carveout_steps_kib.value
        if steps != sorted(set(steps)):
            raise ValueError("smem_carveout_steps_kib.value: must be strictly increasing")
        if steps[-1] * 1024 < per_sm:
            raise ValueError(
                f"smem_carveout_steps_kib.value: largest step {steps[-1]} KiB is smaller "
                f"than smem_per_sm_bytes ({per_sm})"
            )
        warp = self.warp_size_threads.value
        if self.max_threads_per_block.value > self.max_threads_per_sm:
            raise ValueError(
                f"max_threads_per_block.value: {self.max_threads_per_block.value} exceeds "
                f"{warp} x max_warps_per_sm ({self.max_threads_per_sm})"
            )
        if warp * self.registers_per_thread_max.value > self.registers_per_sm.value:
            raise ValueError(
                "registers_per_thread_max.value: one warp at the maximum exceeds registers_per_sm"
            )
        return self

    @property
    def max_threads_per_sm(self) -> int:
        """Threads per SM implied by the warp limit."""
        return self.warp_size_threads.value * self.max_warps_per_sm.value
