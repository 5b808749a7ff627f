"""What the block-size rules would pick, snapped onto the schedules that can run.

The paper's and seed 000's rules give one ``(Br, Bc)`` from the SRAM size and
head dim; it is rarely a tile the kernel has. Snapping: among the tiles of the
runnable schedules, the one nearest in ``|log2 Br - log2 Br_rule| +
|log2 Bc - log2 Bc_rule|`` (block sizes are powers of two, so a ratio is the
natural distance); ties go to the smaller tile (it fits more easily), then to
the smaller Br. The rules say nothing about warps and stages, so a rule's
schedule is its tile with the warps and stages the model ranks best for that
tile: the comparison isolates the choice of Br and Bc.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpusim.schedule import Schedule
from gpusim.tuning.rules import paper_rule, seed_rule
from gpusim.workload import Workload

#: The rules compared, by the name used in the output.
RULES = {"paper": paper_rule, "seed": seed_rule}


@dataclass(frozen=True)
class RulePick:
    """One rule's raw tile, the snapped tile, and the schedule chosen with it."""

    rule: str
    raw_block_m: int
    raw_block_n: int
    schedule: Schedule
    runtime_s: float
    slower_than_best: float  # runtime / best runtime - 1 (0.1 = 10 % slower)


def snap_tile(tile: tuple[int, int], tiles: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """The tile among ``tiles`` nearest to ``tile`` in log2 distance (ties: smaller)."""
    bm, bn = tile

    def key(t: tuple[int, int]) -> tuple[float, int, int]:
        dist = abs(math.log2(t[0] / bm)) + abs(math.log2(t[1] / bn))
        return (round(dist, 9), t[0] * t[1], t[0])

    return min(set(tiles), key=key)


def rule_tiles(workload: Workload, sram_bytes: int) -> dict[str, tuple[int, int]]:
    """Each rule's raw ``(Br, Bc)`` for this head dim, dtype and per-CTA SRAM size."""
    return {
        name: rule(sram_bytes, workload.head_dim, workload.elem_bytes)
        for name, rule in RULES.items()
    }


def rule_picks(
    workload: Workload,
    sram_bytes: int,
    ranked: Sequence[tuple[Schedule, float]],
    best_runtime_s: float | None = None,
) -> list[RulePick]:
    """Each rule's pick among ``ranked`` (schedule, runtime) pairs, best first, and its loss
    against ``best_runtime_s`` (default: the best of ``ranked``)."""
    if not ranked:
        return []
    best_s = min(t for _, t in ranked) if best_runtime_s is None else best_runtime_s
    tiles = [(s.block_m, s.block_n) for s, _ in ranked]
    picks = []
    for name, raw in rule_tiles(workload, sram_bytes).items():
        tile = snap_tile(raw, tiles)
        sched, t = min(
            ((s, t) for s, t in ranked if (s.block_m, s.block_n) == tile), key=lambda p: p[1]
        )
        picks.append(RulePick(name, raw[0], raw[1], sched, t, t / best_s - 1.0))
    return picks
