"""What the device and driver report: SM count, clock, L2, shared memory, registers, limits."""

from __future__ import annotations

from typing import Any

from gpusim.calibrate.clocks import smi_static
from gpusim.calibrate.context import BenchContext

NAME = "device"
# results key -> CUDA device attribute (cudaDevAttr<name>)
ATTRIBUTES = {
    "sm_count": "MultiProcessorCount",
    "sm_clock_reported_hz": "ClockRate",  # kHz in CUDA, converted below
    "l2_bytes": "L2CacheSize",
    "smem_per_sm_bytes": "MaxSharedMemoryPerMultiprocessor",
    "smem_per_block_bytes": "MaxSharedMemoryPerBlockOptin",
    "smem_per_block_default_bytes": "MaxSharedMemoryPerBlock",
    "smem_reserved_per_block_bytes": "ReservedSharedMemoryPerBlock",
    "registers_per_sm": "MaxRegistersPerMultiprocessor",
    "registers_per_block": "MaxRegistersPerBlock",
    "max_threads_per_sm": "MaxThreadsPerMultiProcessor",
    "max_threads_per_block": "MaxThreadsPerBlock",
    "max_blocks_per_sm": "MaxBlocksPerMultiprocessor",
    "memory_clock_reported_hz": "MemoryClockRate",  # kHz in CUDA
    "memory_bus_width_bits": "GlobalMemoryBusWidth",
}
UNITS = {"_hz": "Hz", "_bytes": "B", "_bits": "bit"}


def _unit(key: str) -> str:
    return next((u for suffix, u in UNITS.items() if key.endswith(suffix)), "count")


def run(ctx: BenchContext) -> dict[str, Any]:
    """Read the device's attributes through the CUDA runtime and nvidia-smi."""
    cp = ctx.cp
    rt = cp.cuda.runtime
    values: dict[str, Any] = {}
    missing = []
    for key, attr in ATTRIBUTES.items():
        enum = getattr(rt, f"cudaDevAttr{attr}", None)
        if enum is None:
            missing.append(attr)
            continue
        raw = int(rt.deviceGetAttribute(enum, 0))
        value = raw * 1000 if key.endswith("_hz") else raw
        if value <= 0:
            missing.append(attr)
            continue
        values[key] = {
            "value": value,
            "unit": _unit(key),
            "method": f"cudaDeviceGetAttribute({attr})",
        }
    if "max_threads_per_sm" in values:
        warps = values["max_threads_per_sm"]["value"] // 32
        values["max_warps_per_sm"] = {
            "value": warps,
            "unit": "count",
            "method": "max threads per SM / 32",
        }
    free_b, total_b = cp.cuda.runtime.memGetInfo()
    values["dram_bytes"] = {"value": int(total_b), "unit": "B", "method": "cudaMemGetInfo total"}
    smi = smi_static()
    for key, field in (
        ("sm_clock_max_hz", "clocks.max.sm"),
        ("memory_clock_max_hz", "clocks.max.mem"),
    ):
        try:
            values[key] = {
                "value": float(smi[field]) * 1e6,
                "unit": "Hz",
                "method": f"nvidia-smi {field}",
            }
        except (KeyError, ValueError):
            missing.append(field)
    props = rt.getDeviceProperties(0)
    details = {
        "compute_capability": f"{props['major']}.{props['minor']}",
        "free_bytes_at_start": int(free_b),
        "nvidia_smi": smi,
        "missing": missing,
    }
    ctx.log(
        f"device: {ctx.gpu_name}, {ctx.sm_count} SMs, "
        f"compute capability {details['compute_capability']}"
    )
    return {"values": values, "details": details, "kernels": {}}
