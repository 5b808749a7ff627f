"""The search space: every schedule the tuner considers for an algorithm and workload.

For ``flash2`` the space is the CUDA kernel's template grid
(:mod:`gpusim.kernel_catalog.instances`: Br x Bc x warps x stages for the workload's
dtype and head dim), so the tuner ranks exactly what can be run. Grid points the
kernel has no instance for (a tile that does not split over the warps, too many
accumulator registers) stay in the space as rejections, with the kernel's own
reason; shared memory is judged later against the SRAM size being asked about.
Other algorithms, and head dims without an instance, get a model-only grid.

Given the GPU's SM count, flash2's space also has split-KV schedules (``kv_splits``,
FlashDecoding) where they can matter: tiles whose grid leaves the SMs short of CTAs
(:func:`split_counts`: decode shapes, a few query tiles x batch x heads). They are
*modelled*: the split kernel is the tile instance's loop over a slice of the keys (its
registers are the instance's), the combine kernel is the model's; the CUDA kernels have
no split-KV form yet, which ``modelled`` says for each.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from gpusim.kernel_catalog import instances as ki
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Key splits the tuner tries (FlashAttention's own heuristic looks at up to 128).
SPLIT_CHOICES = (2, 4, 8, 16, 32, 64, 128)
#: Splits are tried for a tile whose grid has fewer CTAs than this many per SM ...
SPLIT_BELOW_CTAS_PER_SM = 2
#: ... up to this many CTAs per SM with the splits (more only adds combine work).
SPLIT_UP_TO_CTAS_PER_SM = 2
#: What a split schedule is, where the kernel list has its tile.
SPLIT_NOTE = (
    "modelled: split kernel = the tile instance's loop over a key slice, plus a combine "
    "kernel; the CUDA kernels have no split-KV form yet"
)

#: Model-only grid for algorithms and workloads without a compiled kernel.
MODEL_BLOCK_M = (16, 32, 64, 128)
MODEL_BLOCK_N = (16, 32, 64, 128)
MODEL_WARPS = (4, 8)
MODEL_STAGES = (1, 2)

#: One query per CTA: the 1-pass single-query order has no Br to choose.
SINGLE_QUERY_ALGORITHMS = ("flash-naive-qkv",)
#: FlashAttention-1 splits the K/V tile across warps.
SPLIT_K_ALGORITHMS = ("flash1",)

#: Shared memory is the tuner's question, not the kernel list's: judge it per SRAM size.
_NO_SMEM_LIMIT_BYTES = 1 << 40


@dataclass(frozen=True)
class SearchSpace:
    """The schedules to consider, where the list came from, and those the kernel lacks."""

    schedules: tuple[Schedule, ...]
    source: str
    kernel_instances: bool  # True: every schedule not in ``unsupported`` is a kernel instance
    unsupported: dict[Schedule, str] = field(default_factory=dict)  # schedule -> kernel's reason
    instance_keys: dict[Schedule, str] = field(default_factory=dict)  # schedule -> instance key
    #: schedules the model ranks that no CUDA kernel runs (yet), each with what it is
    modelled: dict[Schedule, str] = field(default_factory=dict)


def _schedules(algorithm: str, ms, ns, warps, stages) -> tuple[Schedule, ...]:
    split = "split-k" if algorithm in SPLIT_K_ALGORITHMS else "split-q"
    ms = (1,) if algorithm in SINGLE_QUERY_ALGORITHMS else ms
    return tuple(
        Schedule(
            block_m=bm,
            block_n=bn,
            warps=w,
            stages=st,
            warp_split=split,
            residency="registers",
        )
        for bm, bn, w, st in itertools.product(ms, ns, warps, stages)
    )


def _kernel_space(workload: Workload) -> SearchSpace:
    grid = _schedules("flash2", ki.GRID_BLOCK_M, ki.GRID_BLOCK_N, ki.GRID_WARPS, ki.GRID_STAGES)
    variant = ki.variant_of(workload.dtype)
    dims = ki.TC_HEAD_DIMS if variant == "tc" else ki.SIMT_HEAD_DIMS
    what = f"{variant} kernel"
    if workload.head_dim not in dims:
        return SearchSpace(
            grid,
            f"flash2 {what} grid, model only: no instance for head_dim {workload.head_dim} "
            f"(instances: {'/'.join(map(str, dims))})",
            False,
        )
    unsupported, keys = {}, {}
    for s in grid:
        inst = ki.KernelInstance(
            variant, workload.dtype, workload.head_dim, s.block_m, s.block_n, s.warps, s.stages
        )
        why = ki.rejection_reason(inst, _NO_SMEM_LIMIT_BYTES)
        if why is not None:
            unsupported[s] = f"kernel: no instance ({why})"
        else:
            keys[s] = inst.key
    return SearchSpace(
        grid,
        f"flash2 {what} instances (head_dim {workload.head_dim}, {workload.dtype})",
        True,
        unsupported,
        keys,
    )


def split_counts(workload: Workload, schedule: Schedule, sm_count: int) -> list[int]:
    """The ``kv_splits`` worth trying for ``schedule``'s tile on a GPU of ``sm_count`` SMs:
    none where its grid already has :data:`SPLIT_BELOW_CTAS_PER_SM` CTAs per SM; else each
    of :data:`SPLIT_CHOICES` up to the key blocks and to :data:`SPLIT_UP_TO_CTAS_PER_SM`."""
    ctas = -(-workload.seq_len_q // schedule.block_m) * workload.batch_heads
    if ctas >= SPLIT_BELOW_CTAS_PER_SM * sm_count:
        return []
    key_blocks = -(-workload.seq_len_k // schedule.block_n)
    return [
        n
        for n in SPLIT_CHOICES
        if n <= key_blocks and ctas * n <= SPLIT_UP_TO_CTAS_PER_SM * sm_count
    ]


def _with_splits(space: SearchSpace, workload: Workload, sm_count: int) -> SearchSpace:
    """``space`` and, after each tile the kernel has, its split-KV schedules (modelled, see
    the module; a tile without an instance has none: they would be rejected alike)."""
    schedules = []
    keys, modelled = dict(space.instance_keys), {}
    for s in space.schedules:
        schedules.append(s)
        if s in space.unsupported:
            continue
        for n in split_counts(workload, s, sm_count):
            split = s.model_copy(update={"kv_splits": n})
            schedules.append(split)
            modelled[split] = SPLIT_NOTE
            if s in space.instance_keys:
                keys[split] = space.instance_keys[s]
    splits = sorted({s.kv_splits for s in modelled})
    source = space.source
    if splits:
        source += f"; kv_splits {'/'.join(map(str, splits))} (modelled)"
    return SearchSpace(
        tuple(schedules), source, space.kernel_instances, dict(space.unsupported), keys, modelled
    )


def search_space(algorithm: str, workload: Workload, sm_count: int | None = None) -> SearchSpace:
    """Every schedule the tuner considers for ``algorithm`` on ``workload`` (with
    ``sm_count``, flash2's split-KV schedules too: see the module's docstring)."""
    if algorithm == "flash2":
        space = _kernel_space(workload)
        return space if sm_count is None else _with_splits(space, workload, sm_count)
    grid = _schedules(algorithm, MODEL_BLOCK_M, MODEL_BLOCK_N, MODEL_WARPS, MODEL_STAGES)
    return SearchSpace(grid, f"model grid for {algorithm}", False)
