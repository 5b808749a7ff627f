"""Summaries of repeated measurements: min, median, max, with no dependency on CuPy."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    """Minimum, median and maximum of ``count`` repeated samples of one quantity."""

    min: float
    median: float
    max: float
    count: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Spread:
        """Summarise non-empty samples."""
        if not samples:
            raise ValueError("no samples to summarise")
        return cls(min(samples), statistics.median(samples), max(samples), len(samples))

    def as_dict(self) -> dict[str, float | int]:
        """The spread as plain JSON-ready numbers."""
        return {"min": self.min, "median": self.median, "max": self.max, "count": self.count}


def measurement(
    samples: Sequence[float], unit: str, method: str, **extra: object
) -> dict[str, object]:
    """One measured value as stored in the results JSON: the median as ``value``, its spread."""
    spread = Spread.of(samples)
    return {"value": spread.median, "unit": unit, **spread.as_dict(), "method": method, **extra}


def derived(times_s: Sequence[float], work: float) -> list[float]:
    """Per-sample rates ``work / time``; the spread of a rate comes from the spread of the times."""
    if any(t <= 0 for t in times_s):
        raise ValueError(f"non-positive time in samples {list(times_s)}")
    return [work / t for t in times_s]


def best_by_median(
    candidates: Sequence[dict[str, object]], key: Callable[[dict[str, object]], float]
) -> dict[str, object]:
    """The candidate configuration with the largest median (peak throughput over configurations)."""
    if not candidates:
        raise ValueError("no candidate configurations")
    return max(candidates, key=key)
