"""What the tuner returns: the ranked candidates, the rejected schedules, the whole result.

The JSON objects of ``gpusim tune`` are these records' ``to_dict``; :mod:`gpusim.tuning.tuner`
builds them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from gpusim.schedule import Schedule
from gpusim.tuning.rule_snap import RulePick
from gpusim.workload import Workload

#: Schedule fields each candidate, rejection and rule pick also has at the top of its object.
SCHEDULE_KEYS = ("block_m", "block_n", "warps", "stages", "kv_splits")


@dataclass(frozen=True)
class Candidate:
    """One feasible schedule and what the model predicts for it."""

    schedule: Schedule
    smem_bytes_per_cta: int
    regs_per_thread: int
    runtime_s: float
    tflops: float  # model FLOPs (4·B·H·Nq·Nk·d, halved if causal) / runtime / 1e12
    dram_read_bytes: int
    dram_write_bytes: int
    l2_bytes: int  # SM-to-L2 traffic, read + written
    ctas_per_sm: int  # as launched (the main kernel's)
    bound: str
    ctas_per_sm_max: int = 0  # as many as fit (the main kernel's); > ctas_per_sm when capped
    #: the launch's shared memory per SM when capped below what fits (None: not capped)
    smem_per_sm_budget_bytes: int | None = None
    #: the tensor cores' FLOPs, padded rows and keys of every tile included (``tflops`` is
    #: of the useful, model FLOPs): with Nq = 1 in a 64-row tile, 64 times the useful ones
    executed_mma_flops: int = 0
    #: what no CUDA kernel runs yet, for a schedule the model ranks alone (None: a kernel
    #: instance, or a model-only space)
    modelled: str | None = None

    def to_dict(self) -> dict:
        """The JSON object of ``gpusim tune``'s ``candidates`` list."""
        d = {k: getattr(self.schedule, k) for k in SCHEDULE_KEYS}
        d |= {k: v for k, v in asdict(self).items() if k != "schedule"}
        d["schedule"] = self.schedule.model_dump()
        return d


@dataclass(frozen=True)
class Rejected:
    """A schedule that cannot run, and why."""

    schedule: Schedule
    reason: str
    smem_bytes_per_cta: int | None

    def to_dict(self) -> dict:
        """The JSON object of ``gpusim tune``'s ``rejected`` list."""
        d = {k: getattr(self.schedule, k) for k in SCHEDULE_KEYS}
        return d | {
            "smem_bytes_per_cta": self.smem_bytes_per_cta,
            "reason": self.reason,
            "schedule": self.schedule.model_dump(),
        }


@dataclass
class TuneResult:
    """The ranking for one algorithm, workload and profile (with its SRAM size)."""

    algorithm: str
    workload: Workload
    profile: str
    sram_bytes: int
    sram_overridden: bool
    space_source: str
    kernel_instances: bool  # every schedule but the rejected and the modelled is an instance
    candidates: list[Candidate]
    rejected: list[Rejected]
    rules: list[RulePick]
    footprints: str = "estimate"  # where registers per thread came from
    wall_s: float = 0.0
    stats: dict = field(default_factory=dict)
    sm_count: int = 0  # the SMs ranked on (the profile's, or --sm-count's)

    @property
    def best(self) -> Candidate:
        """The schedule with the lowest predicted runtime."""
        return self.candidates[0]

    def to_dict(self) -> dict:
        """The JSON object of ``gpusim tune --json``."""
        return {
            "algorithm": self.algorithm,
            "workload": self.workload.model_dump(),
            "profile": self.profile,
            "sm_count": self.sm_count,
            "sram_bytes": self.sram_bytes,
            "sram_overridden": self.sram_overridden,
            "search_space": self.space_source,
            "kernel_instances": self.kernel_instances,
            "modelled_candidates": sum(1 for c in self.candidates if c.modelled),
            "footprints": self.footprints,
            # the engine's path every candidate ran on (gpusim.tuning.tuner): ``simulate`` of
            # the same schedule with its default detail (auto) can differ by a fraction of 1 %
            "detail": "aggregated",
            "candidates": [c.to_dict() for c in self.candidates],
            "rejected": [r.to_dict() for r in self.rejected],
            "rules": [
                {
                    "rule": p.rule,
                    "raw_block_m": p.raw_block_m,
                    "raw_block_n": p.raw_block_n,
                    **{k: getattr(p.schedule, k) for k in SCHEDULE_KEYS},
                    "runtime_s": p.runtime_s,
                    "slower_than_best": p.slower_than_best,
                }
                for p in self.rules
            ],
            "tune_wall_s": self.wall_s,
        }
