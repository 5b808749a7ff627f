"""The schedule: how an algorithm is mapped onto the machine (tiles, warps, stages).

One object describes a configuration for the simulator, the tuner and the CUDA
kernel alike, so "the configuration we predicted" and "the one we ran" are the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

WarpSplit = Literal["split-q", "split-k"]
Residency = Literal["registers", "smem"]


class Schedule(BaseModel):
    """Tile sizes and mapping parameters of one algorithm (which algorithm is said beside it,
    where the schedule is used: ``simulate("flash2", workload, schedule, profile)``).

    - ``block_m`` (Br): query rows per tile; ``block_n`` (Bc): key rows per tile.
    - ``warps``: warps per CTA; ``stages``: shared-memory buffers for K/V tiles
      (>= 2 overlaps the next tile's load with the current tile's compute).
    - ``warp_split``: ``split-q`` (FlashAttention-2: each warp owns Br/warps query
      rows) or ``split-k`` (FlashAttention-1: warps share the Q tile and split the
      K/V tile, exchanging partial rows through shared memory).
    - ``residency``: where S/P, O, m, l live between steps: ``registers`` (as real
      FlashAttention kernels do) or ``smem`` (as the seed 001 kernel does).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    block_m: int = Field(128, gt=0, le=4096)
    block_n: int = Field(64, gt=0, le=4096)
    warps: int = Field(4, gt=0, le=64)
    stages: int = Field(2, gt=0, le=8)
    warp_split: WarpSplit = "split-q"
    residency: Residency = "registers"

    def label(self, algorithm: str | None = None) -> str:
        """A short human-readable name, e.g. ``flash2 Br128 Bc64 w4 s2 split-q registers``
        (without the algorithm's name when none is given)."""
        text = (
            f"Br{self.block_m} Bc{self.block_n} w{self.warps} s{self.stages}"
            f" {self.warp_split} {self.residency}"
        )
        return text if algorithm is None else f"{algorithm} {text}"

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Schedule:
        """The schedule of a stored record; records written while a schedule also named its
        algorithm carry an ``algorithm`` key, which the record's own algorithm field repeats."""
        return cls(**{k: v for k, v in record.items() if k != "algorithm"})
