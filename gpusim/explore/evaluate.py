"""One point of a sweep: the varied profile, the tuner's best schedule for the workload and
algorithm on it, and what the model predicts for that schedule.

:class:`PointEvaluator` is the function the executors run. It holds the base profile as
plain JSON (a profile object does not pickle, and a Dask worker may not have the file), so
it travels to a forked process or a remote worker as it is; each process rebuilds the
profiles it needs and keeps the last few.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from gpusim.errors import GpusimError
from gpusim.explore.fields import varied_profile_with_notes
from gpusim.profiles.schema import HardwareProfile
from gpusim.workload import Workload

#: Varied profiles a process keeps built (a point's workloads and algorithms share one).
PROFILE_CACHE_SIZE = 32


def best_point_result(result) -> dict[str, Any]:
    """What a sweep keeps of a :class:`~gpusim.tuning.tuner.TuneResult`: its best candidate."""
    best = result.best
    schedule = best.schedule.model_dump(mode="json")
    schedule |= {
        "smem_bytes_per_cta": best.smem_bytes_per_cta,
        "regs_per_thread": best.regs_per_thread,
    }
    return {
        "schedule": schedule,
        "runtime_s": best.runtime_s,
        "tflops": best.tflops,
        "bound": best.bound,
        "dram_read_bytes": best.dram_read_bytes,
        "dram_write_bytes": best.dram_write_bytes,
        "global_bytes": best.l2_bytes,  # SM-to-L2 traffic, read + written
        "ctas_per_sm": best.ctas_per_sm,
        "ctas_per_sm_max": best.ctas_per_sm_max,
        "sram_bytes": result.sram_bytes,
        "candidates": len(result.candidates),
    }


@dataclass
class PointEvaluator:
    """Tune one sweep point ``{"algorithm", "params", "workload"}`` on the varied base."""

    base: dict[str, Any]  # the base profile, model_dump(mode="json")
    footprints: str = "compiled"
    _profiles: OrderedDict = field(default_factory=OrderedDict, init=False, repr=False)
    _base: HardwareProfile | None = field(default=None, init=False, repr=False)

    @classmethod
    def of(cls, base: HardwareProfile, footprints: str = "compiled") -> PointEvaluator:
        """The evaluator for sweeps of ``base``."""
        return cls(base.model_dump(mode="json"), footprints)

    def __getstate__(self) -> dict[str, Any]:
        return {"base": self.base, "footprints": self.footprints}  # not the built profiles

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)

    def profile(self, params: dict[str, Any]) -> tuple[HardwareProfile, list[str]]:
        """The base profile with ``params`` set and what was derived from them (built once
        per process, then kept)."""
        if self._base is None:
            self._base = HardwareProfile.model_validate(self.base)
        key = tuple(sorted(params.items()))
        hit = self._profiles.get(key)
        if hit is None:
            hit = varied_profile_with_notes(self._base, params)
            self._profiles[key] = hit
            if len(self._profiles) > PROFILE_CACHE_SIZE:
                self._profiles.popitem(last=False)
        else:
            self._profiles.move_to_end(key)
        return hit

    def __call__(self, point: dict[str, Any]) -> dict[str, Any]:
        from gpusim.api import tune

        try:
            workload = Workload.model_validate(point["workload"])
        except Exception as e:  # a hand-edited journal; plans only make valid workloads
            raise GpusimError(f"workload {point.get('workload')!r}: {e}") from None
        profile, notes = self.profile(dict(point["params"]))
        # One process per point: the sweep's parallelism is across points, not inside a search.
        result = tune(
            workload, profile, algorithm=point["algorithm"], footprints=self.footprints, jobs=1
        )
        # What the model derived from the varied fields, so that no result hides it.
        return best_point_result(result) | {"notes": "; ".join(notes) or None}
