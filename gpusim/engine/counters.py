"""Counters of a simulated run, named after what Nsight Compute reports."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass
class Counters:
    """Bytes and work of one kernel (or a whole run).

    ``global_*`` is SM-to-L2 traffic (Nsight's L2 requests from the SMs,
    ``lts__t_bytes``-like), ``dram_*`` what reaches device memory
    (``dram__bytes_read.sum`` / ``dram__bytes_write.sum``).
    """

    ctas: int = 0
    global_read_bytes: int = 0
    global_write_bytes: int = 0
    dram_read_bytes: int = 0
    dram_write_bytes: int = 0
    mma_flops: int = 0  # executed matrix-multiply FLOPs (on tensor cores, or FFMA for fp32)
    fp32_ops: int = 0
    exp_ops: int = 0
    smem_traffic_bytes: int = 0
    barriers: int = 0
    #: of ``smem_traffic_bytes``, the tile fills (global loads landing in shared memory)
    smem_fill_bytes: int = 0
    #: bytes the SMs fetch from the L2 for ``global_read_bytes``: more than requested when a
    #: kernel's copy pattern makes the L1 fetch more (the kernel's ``l2_fetch_factor``)
    sm_l2_read_bytes: int = 0

    @property
    def l2_read_hit_bytes(self) -> int:
        """Global read bytes served by the L2 (every read is a hit or a DRAM read)."""
        return self.global_read_bytes - self.dram_read_bytes

    @property
    def l2_hit_rate(self) -> float:
        """Share of global read bytes that hit in L2 (0 when nothing was read)."""
        g = self.global_read_bytes
        return self.l2_read_hit_bytes / g if g else 0.0

    def add(self, other: Counters) -> None:
        """Add ``other`` into this one."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
