"""What :mod:`gpusim.validation.torch_bwd_measure` asks torch about FlashAttention's
backend: the contexts that restrict ``scaled_dot_product_attention`` to the flash backend
(or to the math backend, the check's yardstick), and the device's opt-in shared memory per
block, which decides the backward's tiles. Torch is passed in, never imported here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any


def sdpa_contexts(torch: Any) -> tuple[str, Callable[[], Any], Callable[[], Any]]:
    """(which API, flash-only context, math-only context): ``torch.nn.attention.sdpa_kernel``,
    else the older ``torch.backends.cuda.sdp_kernel``."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        old = torch.backends.cuda.sdp_kernel
        return (
            "torch.backends.cuda.sdp_kernel",
            lambda: old(enable_flash=True, enable_math=False, enable_mem_efficient=False),
            lambda: old(enable_flash=False, enable_math=True, enable_mem_efficient=False),
        )
    return (
        "torch.nn.attention.sdpa_kernel",
        lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION),
        lambda: sdpa_kernel(SDPBackend.MATH),
    )


def max_smem_per_block_optin(torch: Any) -> int | None:
    """The device's opt-in shared memory per block, as FlashAttention's launch code reads it
    (torch's device properties, else CuPy's runtime; None if neither says)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    v = getattr(props, "shared_memory_per_block_optin", None)
    if v:
        return int(v)
    with contextlib.suppress(Exception):  # an optional fact
        import cupy

        rt = cupy.cuda.runtime
        return int(rt.deviceGetAttribute(rt.cudaDevAttrMaxSharedMemoryPerBlockOptin, 0))
    return None
