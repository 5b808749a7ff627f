"""The search space: every schedule the tuner considers for an algorithm and workload.

For ``flash2`` in fp16/bf16 the space is the tensor-core kernel's instance list
(Br x Bc x warps x stages for the head dims it is compiled for), so the tuner
ranks exactly what can be run. The list lives here once; the kernel package
builds its instances from :data:`TENSOR_CORE_SPACE` (or, when it exports its own
``TENSOR_CORE_INSTANCES``, the tuner reads that instead). Other algorithms and
head dims without an instance get a model-only grid, and the result says so.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from gpusim.schedule import Schedule
from gpusim.workload import Workload


@dataclass(frozen=True)
class KernelSpace:
    """The template parameters of one kernel family: a grid of schedules per head dim and dtype."""

    block_m: tuple[int, ...]
    block_n: tuple[int, ...]
    warps: tuple[int, ...]
    stages: tuple[int, ...]
    head_dims: tuple[int, ...]
    dtypes: tuple[str, ...]
    #: Each warp owns a multiple of this many query rows (16: the m16 of mma.sync, split-q).
    rows_per_warp_multiple: int = 1

    def has(self, block_m: int, warps: int) -> bool:
        """Whether ``block_m`` query rows split evenly over ``warps`` warps for this kernel."""
        return block_m % (warps * self.rows_per_warp_multiple) == 0

    def supports(self, workload: Workload) -> bool:
        """Whether the kernel has instances for the workload's head dim and dtype."""
        return workload.head_dim in self.head_dims and workload.dtype in self.dtypes


#: The fp16/bf16 tensor-core FlashAttention-2 kernel (mma.sync m16n8k16, cp.async stages).
TENSOR_CORE_SPACE = KernelSpace(
    block_m=(64, 128),
    block_n=(32, 64, 128),
    warps=(4, 8),
    stages=(1, 2, 3),
    head_dims=(64, 128),
    dtypes=("fp16", "bf16"),
    rows_per_warp_multiple=16,
)

#: Model-only grid for algorithms and workloads without a compiled kernel.
MODEL_GRID = KernelSpace(
    block_m=(16, 32, 64, 128),
    block_n=(16, 32, 64, 128),
    warps=(4, 8),
    stages=(1, 2),
    head_dims=(),
    dtypes=("fp32", "fp16", "bf16"),
)

#: One query per CTA: the 1-pass single-query order has no Br to choose.
SINGLE_QUERY_ALGORITHMS = ("flash-naive-qkv",)
#: FlashAttention-1 splits the K/V tile across warps.
SPLIT_K_ALGORITHMS = ("flash1",)


@dataclass(frozen=True)
class SearchSpace:
    """The schedules to consider and where the list came from (for the report)."""

    schedules: tuple[Schedule, ...]
    source: str
    kernel_instances: bool  # True: every schedule here is a compiled kernel instance


def _kernel_space() -> KernelSpace:
    """The kernel package's instance list if it exports one, else :data:`TENSOR_CORE_SPACE`."""
    try:
        from gpusim import kernels  # the CUDA side; optional on machines without it
    except ImportError:
        return TENSOR_CORE_SPACE
    space = getattr(kernels, "TENSOR_CORE_INSTANCES", None)
    return space if isinstance(space, KernelSpace) else TENSOR_CORE_SPACE


def _grid(algorithm: str, space: KernelSpace) -> tuple[Schedule, ...]:
    split = "split-k" if algorithm in SPLIT_K_ALGORITHMS else "split-q"
    ms = (1,) if algorithm in SINGLE_QUERY_ALGORITHMS else space.block_m
    return tuple(
        Schedule(
            algorithm=algorithm,
            block_m=bm,
            block_n=bn,
            warps=w,
            stages=st,
            warp_split=split,
            residency="registers",
        )
        for bm, bn, w, st in itertools.product(ms, space.block_n, space.warps, space.stages)
        if algorithm in SINGLE_QUERY_ALGORITHMS or space.has(bm, w)
    )


def search_space(algorithm: str, workload: Workload) -> SearchSpace:
    """Every schedule the tuner considers for ``algorithm`` on ``workload``."""
    if algorithm == "flash2":
        space = _kernel_space()
        if space.supports(workload):
            return SearchSpace(
                _grid(algorithm, space),
                f"tensor-core kernel instances (head_dim {workload.head_dim}, {workload.dtype})",
                True,
            )
        return SearchSpace(
            _grid(algorithm, space),
            f"tensor-core kernel grid, model only: no instance for head_dim "
            f"{workload.head_dim} {workload.dtype} (instances: head_dim "
            f"{'/'.join(map(str, space.head_dims))}, {'/'.join(space.dtypes)})",
            False,
        )
    return SearchSpace(_grid(algorithm, MODEL_GRID), f"model grid for {algorithm}", False)
