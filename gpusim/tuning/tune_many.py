"""Tune many workloads at once, one process per core (:func:`~gpusim.parallel_map.pmap`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpusim.parallel_map import pmap
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
    # Each worker searches one workload serially: the parallelism is across workloads.
    return tune(task.algorithm, task.workload, task.profile, task.sram_bytes, jobs=1)


def tune_many(tasks: Sequence[TuneTask], jobs: int | None = None) -> list[TuneResult]:
    """Results of ``tune`` for every task, in order; ``jobs`` processes (default: the cores)."""
    return pmap(_run, list(tasks), jobs)
