"""The head sizes PyTorch's FlashAttention-2 is compiled for, and the head size a kernel
executes.

FlashAttention-2 dispatches on ``HEADDIM_SWITCH``: a head size runs the instance of the
smallest compiled size at least as large, with ``Is_even_K`` false when they differ (its
copies predicate the columns past the head size; the products run over the compiled size,
on zeros there). The sources read for :mod:`gpusim.validation.torch_flash_schedule` list 32,
64, 96, 128, 160, 192 and 256 (and 224 upstream); the torch the device runs (2.11.0+cu130)
holds fewer: every ``Flash_fwd_kernel_traits`` and ``Flash_bwd_kernel_traits`` of its
``libtorch_cuda.so`` (``data/h200/2026-12-02_torch_flash_sass/flash_res_usage.txt``, 1416
functions) is of head size 32, 64, 96, 128, 192 or 256, and held-out set 44's d160 runs
launched the head-size-192 backward (``data/h100/2026-12-07_torch_heldout44_measured``,
``Is_even_K`` false). With this switch on, PyTorch's schedules take the binary's sizes and
the model is given the workload at the executed head size (its products and tiles; its
copies read the padded columns too, a few percent of a prefill's bytes). Held-out set 45
judges it (see ``gpusim.validation.torch_heldout45``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpusim.errors import GpusimError
from gpusim.mechanism import Mechanism

if TYPE_CHECKING:  # pydantic: not on the GPU machine, where the backward's tiles are listed
    from gpusim.workload import Workload

#: the head sizes of every FlashAttention-2 kernel in torch 2.11.0+cu130's libtorch_cuda.so
BINARY_HEAD_DIMS = (32, 64, 96, 128, 192, 256)
#: on since held-out set 45 adopted it (forward MAPE 24.8 -> 7.4 % on an H100); off: the
#: sources' sizes and the workload's own head size, as sets 15-44 were predicted
BINARY_BUCKETS = Mechanism(True)


def binary_buckets(on: bool):
    """PyTorch's schedules with (``on``) or without the binary's head sizes."""
    return BINARY_BUCKETS.setting(on)


def binary_head_dim(head_dim: int) -> int:
    """The compiled head size PyTorch runs ``head_dim`` with (a multiple of 8 up to 256)."""
    if head_dim <= 0 or head_dim % 8 or head_dim > 256:
        raise GpusimError(
            f"PyTorch's flash backend takes head_dim a multiple of 8 up to 256, not {head_dim}"
        )
    return next(b for b in BINARY_HEAD_DIMS if head_dim <= b)


def executed(workload: Workload) -> Workload:
    """``workload`` at the head size PyTorch's kernel executes (where the switch is on)."""
    if not BINARY_BUCKETS.on:
        return workload
    d = binary_head_dim(workload.head_dim)
    return workload if d == workload.head_dim else workload.model_copy(update={"head_dim": d})
