"""Tune many workloads at once, one process per core.

Each workload's search is independent, so a sweep is split over a process pool
(fork, so the workers inherit the imported engine instead of importing it again).
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Sequence
from dataclasses import dataclass

from gpusim.profiles.schema import HardwareProfile
from gpusim.tuning.tuner import TuneResult, tune
from gpusim.workload import Workload


@dataclass(frozen=True)
class TuneTask:
    """One search: algorithm, workload, profile, and the optional per-CTA SRAM override."""

    algorithm: str
    workload: Workload
    profile: HardwareProfile
    sram_bytes: int | None = None


def _run(task: TuneTask) -> TuneResult:
    return tune(task.algorithm, task.workload, task.profile, task.sram_bytes)


def default_jobs() -> int:
    """One worker per core this process may use."""
    return max(1, len(os.sched_getaffinity(0)))


def tune_many(tasks: Sequence[TuneTask], jobs: int | None = None) -> list[TuneResult]:
    """Results of ``tune`` for every task, in order; ``jobs`` processes (default: the cores)."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs <= 1 or len(tasks) <= 1:
        return [_run(t) for t in tasks]
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with ctx.Pool(min(jobs, len(tasks))) as pool:
        return pool.map(_run, tasks, chunksize=1)
