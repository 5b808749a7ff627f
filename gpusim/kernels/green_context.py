"""SM partitions of one GPU: green contexts, and CuPy and PyTorch work on their streams.

A green context owns a set of the GPU's SMs and shares the rest of the device (HBM, the
L2, the clocks) with every other context. Made through the CUDA driver API of
``cuda.bindings.driver``: the device's SM resource (``cuDeviceGetDevResource``), one group
of at least N SMs split off it (``cuDevSmResourceSplitByCount``; the driver rounds N up to
its granularity: on the H200 multiples of 8, 66 asked gives 72), a descriptor
(``cuDevResourceGenerateDesc``), the context (``cuGreenCtxCreate``) and a stream of it
(``cuGreenCtxStreamCreate``). Kernels of the primary context (CuPy's modules, PyTorch's)
run on that stream's SMs when launched on it, through ``cupy.cuda.ExternalStream`` and
``torch.cuda.ExternalStream``. The whole GPU is a green context too (the device's
resource unsplit), so every partition size is measured the same way.

What the driver grants is recorded, not assumed: the group's ``smCount``, the context's
own SM resource read back (``cuGreenCtxGetDevResource``), and the distinct SM ids
(``%smid``) that a probe kernel's blocks ran on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gpusim.errors import GpusimError

#: The probe: enough blocks that every SM of the partition runs some; each spins a little
#: so that the first SMs do not take them all.
PROBE_BLOCKS = 4096
PROBE_SPIN_CYCLES = 20000
_PROBE_SOURCE = r"""
extern "C" __global__ void smid_probe(unsigned int* out, long long spin) {
    unsigned int id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    long long t0 = clock64();
    while (clock64() - t0 < spin) {}
    if (threadIdx.x == 0) out[blockIdx.x] = id;
}
"""


def _driver() -> Any:
    try:
        from cuda.bindings import driver
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise GpusimError(
            "green contexts need cuda-python (cuda.bindings.driver); install cuda-bindings"
        ) from exc
    return driver


def _check(result: Any, what: str) -> Any:
    """The values of a driver call's result tuple after its CUresult; GpusimError if not
    CUDA_SUCCESS."""
    drv = _driver()
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise GpusimError(f"{what} failed: {err}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


@dataclass
class Partition:
    """One green context and a stream of it: ``sm_count`` SMs of the ``requested``."""

    requested: int
    sm_count: int  # the split group's smCount (the whole device's when not split)
    ctx_sm_count: int  # the context's SM resource, read back
    remaining_sms: int  # the split's remainder (0 for the whole device)
    device_sms: int
    stream_ptr: int
    sm_ids_seen: int | None = None  # distinct %smid of the probe's blocks
    _handles: dict[str, Any] = field(default_factory=dict, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready facts of the partition."""
        return {
            "requested_sms": self.requested,
            "sm_count": self.sm_count,
            "ctx_sm_count": self.ctx_sm_count,
            "remaining_sms": self.remaining_sms,
            "device_sms": self.device_sms,
            "sm_ids_seen": self.sm_ids_seen,
        }

    @contextlib.contextmanager
    def current(self) -> Iterator[None]:
        """CuPy's (and PyTorch's, when importable) current stream is this partition's inside
        the block; the stream is synchronised on the way out."""
        import cupy

        cs = cupy.cuda.ExternalStream(self.stream_ptr)
        with contextlib.ExitStack() as stack:
            stack.enter_context(cs)
            try:
                import torch
            except ImportError:  # pragma: no cover - CuPy-only machines
                torch = None
            if torch is not None:
                ts = torch.cuda.ExternalStream(self.stream_ptr)
                stack.enter_context(torch.cuda.stream(ts))
            yield
        cs.synchronize()

    def close(self) -> None:
        """Destroy the stream and the green context (idempotent)."""
        drv = _driver()
        if (s := self._handles.pop("stream", None)) is not None:
            drv.cuStreamDestroy(s)
        if (g := self._handles.pop("ctx", None)) is not None:
            drv.cuGreenCtxDestroy(g)


def open_partition(requested: int, device: int = 0) -> Partition:
    """A green context of at least ``requested`` SMs of GPU ``device`` (all of them when
    ``requested`` is the device's count or more), with a non-blocking stream."""
    drv = _driver()
    import cupy

    cupy.cuda.Device(device).use()  # the primary context exists before the green one
    _check(drv.cuInit(0), "cuInit")
    dev = _check(drv.cuDeviceGet(device), "cuDeviceGet")
    sm_type = drv.CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM
    whole = _check(drv.cuDeviceGetDevResource(dev, sm_type), "cuDeviceGetDevResource")
    device_sms = int(whole.sm.smCount)
    if requested >= device_sms:
        group, remaining = whole, 0
    else:
        groups, n, rest = _check(
            drv.cuDevSmResourceSplitByCount(1, whole, 0, int(requested)),
            f"cuDevSmResourceSplitByCount({requested} SMs)",
        )
        if int(n) < 1 or not groups:
            raise GpusimError(f"the driver made no group of {requested} SMs")
        group, remaining = groups[0], int(rest.sm.smCount)
    desc = _check(drv.cuDevResourceGenerateDesc([group], 1), "cuDevResourceGenerateDesc")
    flags = drv.CUgreenCtxCreate_flags.CU_GREEN_CTX_DEFAULT_STREAM
    ctx = _check(drv.cuGreenCtxCreate(desc, dev, flags), "cuGreenCtxCreate")
    nonblocking = drv.CUstream_flags.CU_STREAM_NON_BLOCKING
    stream = _check(drv.cuGreenCtxStreamCreate(ctx, nonblocking, 0), "cuGreenCtxStreamCreate")
    back = _check(drv.cuGreenCtxGetDevResource(ctx, sm_type), "cuGreenCtxGetDevResource")
    part = Partition(
        requested=requested,
        sm_count=int(group.sm.smCount),
        ctx_sm_count=int(back.sm.smCount),
        remaining_sms=remaining,
        device_sms=device_sms,
        stream_ptr=int(stream),
        _handles={"ctx": ctx, "stream": stream},
    )
    part.sm_ids_seen = probe_sm_ids(part)
    return part


def probe_sm_ids(part: Partition) -> int:
    """Distinct SMs the blocks of a probe kernel ran on, launched on ``part``'s stream."""
    import cupy

    kernel = cupy.RawKernel(_PROBE_SOURCE, "smid_probe")
    with part.current():
        out = cupy.full(PROBE_BLOCKS, 0xFFFFFFFF, dtype=cupy.uint32)
        kernel((PROBE_BLOCKS,), (32,), (out, cupy.int64(PROBE_SPIN_CYCLES)))
        ids = cupy.unique(out)
        seen = int(ids.size) - int(bool((ids == 0xFFFFFFFF).any()))
    return seen
