"""The real on-chip footprint of a measured run, for the simulator's occupancy.

The compiled kernel's registers per thread (``num_regs``) and shared memory (dynamic as
launched, plus static) replace the algorithm's estimates, so the model is judged with the
occupancy the GPU really had. cuBLAS kernels' footprints are not readable from CuPy: the
standard GEMMs keep the model's estimate; its softmax kernel has its real one.
"""

from __future__ import annotations

from typing import Any

from algorithms.base import OnChip

#: The model's kernel names of each measured kind's kernels with a readable footprint.
FLASH2_KERNEL = "flash2_fwd"
SOFTMAX_KERNEL = "softmax_row"


def _chip(attrs: dict[str, Any], threads: int) -> OnChip:
    smem = {
        "dynamic": int(attrs.get("dynamic_smem_bytes", 0)),
        "static": int(attrs.get("shared_size_bytes", 0)),
    }
    return OnChip(smem, threads, int(attrs["num_regs"]))


def real_on_chip(record: dict[str, Any]) -> dict[str, OnChip]:
    """``{model kernel name: OnChip}`` from a record's kernel attributes (empty if none)."""
    attrs = record.get("attributes") or {}
    if record["kind"] == "flash2":
        if "num_regs" not in attrs:
            return {}
        return {FLASH2_KERNEL: _chip(attrs, 32 * record["schedule"]["warps"])}
    soft = attrs.get(SOFTMAX_KERNEL)
    if soft and "num_regs" in soft:
        return {SOFTMAX_KERNEL: _chip(soft, int(soft.get("threads", 128)))}
    return {}
