"""The tile space ``gpusim tune --mma wgmma`` searches: a warp-specialized wgmma kernel's tiles.

No compiled kernel of the project is searched here: every schedule is *modelled* (the
engine's wgmma path, :func:`gpusim.engine.wgmma_rates.wgmma_step_rate`). The default grid is that
of FlashAttention-3-style kernels: Br 64-256 in multiples of 64 per consumer warpgroup, Bc
of the practical wgmma N sizes (multiples of 8 up to 256), 1-2 consumer warpgroups (4 or 8
compute warps), 2-3 K/V stages, K/V by TMA, one producer warpgroup. A user's own tile space
(``--tile-space "block_m=64,128;block_n=64,128;warps=4,8;stages=2"``, as a Triton kernel's
configs give it) replaces any of those lists; points that break wgmma's shape rules stay in
the space as rejections with the rule (:func:`gpusim.tuning.feasibility.check`).
"""

from __future__ import annotations

import itertools

from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.tuning.space import SearchSpace
from gpusim.workload import Workload

DEFAULT = {
    "block_m": (64, 128, 192, 256),
    "block_n": (64, 80, 96, 128, 176, 192, 256),
    "warps": (4, 8),
    "stages": (2, 3),
}
PRODUCER_WARPS = 4  # one producer warpgroup (TMA issue)
MODELLED = "wgmma kernel (warp-specialized, TMA): modelled, no compiled instance"


def parse_tile_space(text: str) -> dict[str, tuple[int, ...]]:
    """``"block_m=64,128;block_n=64;warps=8;stages=2,3"`` -> lists (a one-line error if bad)."""
    out: dict[str, tuple[int, ...]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, _, values = part.partition("=")
        key = key.strip().replace("-", "_")
        if key not in DEFAULT or not values:
            raise GpusimError(
                f"--tile-space: {part!r} is not KEY=V1,V2 with KEY one of {', '.join(DEFAULT)}"
            )
        try:
            vals = tuple(int(v) for v in values.split(","))
        except ValueError:
            raise GpusimError(
                f"--tile-space: {part!r} has a value that is not an integer"
            ) from None
        if any(v <= 0 for v in vals):
            raise GpusimError(f"--tile-space: {part!r}: every value must be positive")
        out[key] = vals
    if not out:
        raise GpusimError("--tile-space is empty; give e.g. block_m=64,128;block_n=128")
    return out


def wgmma_space(
    workload: Workload, user: dict[str, tuple[int, ...]] | None = None, o_store: str | None = None
) -> SearchSpace:
    """Every schedule of the wgmma grid (the user's lists where given), all modelled; with
    ``o_store`` (``--o-store``) where given, else the class's default."""
    grid = {**DEFAULT, **(user or {})}
    schedules = tuple(
        Schedule(
            block_m=m,
            block_n=n,
            warps=w,
            stages=st,
            mma="wgmma",
            tile_copy="tma",
            producer_warps=PRODUCER_WARPS,
            o_store=o_store,
        )
        for m, n, w, st in itertools.product(
            grid["block_m"], grid["block_n"], grid["warps"], grid["stages"]
        )
    )
    what = "user tile space" if user else "default grid"
    return SearchSpace(
        schedules,
        f"wgmma {what} (head_dim {workload.head_dim}, {workload.dtype}), modelled",
        False,
        modelled={s: MODELLED for s in schedules},
    )
