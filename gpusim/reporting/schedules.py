"""Choosing a runnable schedule for a figure that fixes the tile size and leaves the rest."""

from __future__ import annotations

from functools import cache

from gpusim.errors import GpusimError
from gpusim.reporting.points import Point

#: Warp counts tried for a fixed tile, in order (4 first: the paper's and FA2's usual choice).
WARPS_TRIED = (4, 8, 16, 2, 1)
#: Stage counts tried (2: the next K/V tile loads while this one computes).
STAGES_TRIED = (2, 1)
#: The register estimate reaches this cap when a tile would spill.
SPILL_REGS = 255


@cache
def fitting_schedule(
    algorithm: str, profile: str, workload_key: tuple, block_m: int, block_n: int
) -> tuple[int, int] | str:
    """``(warps, stages)`` for a ``block_m x block_n`` tile that fits the profile's SM without
    spilling, or the reason none does. ``workload_key`` is ``(batch, heads, seq_len,
    head_dim, dtype, causal)``."""
    from algorithms import get_algorithm
    from gpusim.api import build_inputs

    batch, heads, n, d, dtype, causal = workload_key
    reasons: dict[str, None] = {}  # distinct reasons, first seen first
    for warps in WARPS_TRIED:
        for stages in STAGES_TRIED:
            try:
                w, s, _, _ = build_inputs(
                    algorithm=algorithm,
                    profile=profile,
                    batch=batch,
                    heads=heads,
                    seq_len=n,
                    head_dim=d,
                    dtype=dtype,
                    causal=causal,
                    block_m=block_m,
                    block_n=block_n,
                    warps=warps,
                    stages=stages,
                )
            except GpusimError as e:
                reasons[str(e)] = None
                continue
            regs = max(k.on_chip().regs_per_thread for k in get_algorithm(algorithm).kernels(w, s))
            if regs >= SPILL_REGS:
                reasons[f"needs more than {SPILL_REGS - 1} registers per thread (spills)"] = None
                continue
            return warps, stages
    return "; ".join(list(reasons)[:2])


def tile_point(
    algorithm: str, profile: str, workload: dict, block_m: int, block_n: int
) -> Point | str:
    """The simulation of a fixed ``block_m x block_n`` tile on a non-causal ``workload`` (a dict
    of batch, heads, seq_len, head_dim, dtype), with warps and stages that fit; or why none fit."""
    w = workload
    key = (w["batch"], w["heads"], w["seq_len"], w["head_dim"], w["dtype"], False)
    fit = fitting_schedule(algorithm, profile, key, block_m, block_n)
    if isinstance(fit, str):
        return fit
    return Point(
        algorithm,
        profile,
        w["batch"],
        w["heads"],
        w["seq_len"],
        w["head_dim"],
        w["dtype"],
        False,
        block_m,
        block_n,
        *fit,
    )
