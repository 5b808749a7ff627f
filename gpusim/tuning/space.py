"""The search space: every schedule the tuner considers for an algorithm and workload.

For ``flash2`` the space is the CUDA kernel's template grid
(:mod:`gpusim.kernel_catalog.instances`: Br x Bc x warps x stages for the workload's
dtype and head dim), so the tuner ranks exactly what can be run. Grid points the
kernel has no instance for (a tile that does not split over the warps, too many
accumulator registers) stay in the space as rejections, with the kernel's own
reason; shared memory is judged later against the SRAM size being asked about.
Other algorithms, head dims without an instance, and flash2's backward (no CUDA kernel
runs it) get a model-only grid.

The tuner's space for flash2 also has the inference schedules of
:mod:`gpusim.tuning.inference_space` (split-KV, packed GQA heads); ``modelled`` names
those no CUDA kernel runs (the fp32 kernel's).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from gpusim.kernel_catalog import instances as ki
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Model-only grid for algorithms and workloads without a compiled kernel.
MODEL_BLOCK_M = (16, 32, 64, 128)
MODEL_BLOCK_N = (16, 32, 64, 128)
MODEL_WARPS = (4, 8)
MODEL_STAGES = (1, 2)
#: flash2's backward (no CUDA kernel: model only): query rows per step, keys per CTA
#: (FlashAttention-2's kBlockM and kBlockN are 64 or 128), warps, Q/dO buffers.
BACKWARD_BLOCK_M = (32, 64, 128)
BACKWARD_BLOCK_N = (32, 64, 128)
BACKWARD_WARPS = (4, 8)
BACKWARD_STAGES = (1, 2)

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


def search_space(algorithm: str, workload: Workload) -> SearchSpace:
    """Every schedule of ``algorithm``'s grid for ``workload`` (the tuner adds flash2's
    inference schedules: :func:`gpusim.tuning.inference_space.tuning_space`)."""
    if algorithm == "flash2" and workload.backward:
        grid = _schedules(
            algorithm, BACKWARD_BLOCK_M, BACKWARD_BLOCK_N, BACKWARD_WARPS, BACKWARD_STAGES
        )
        return SearchSpace(grid, f"model grid for flash2 --pass {workload.pass_}", False)
    if algorithm == "flash2":
        return _kernel_space(workload)
    grid = _schedules(algorithm, MODEL_BLOCK_M, MODEL_BLOCK_N, MODEL_WARPS, MODEL_STAGES)
    return SearchSpace(grid, f"model grid for {algorithm}", False)
