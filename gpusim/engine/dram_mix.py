"""DRAM time of a tile loader's reads and writes apart: a read stream is faster than a copy.

The profile's ``dram_bandwidth_bytes_per_s`` is a device-to-device copy's (bytes read plus
written, half each: 4.19 TB/s on the H200), the DRAM lane's capacity. A stream of cp.async
tile copies that only reads reaches more (``dram_read_bandwidth_bytes_per_s``, 4.57 TB/s
on the H200: ``python -m gpusim.calibrate.dram_read``), and a flash kernel's DRAM traffic
is such a stream and little else. Where the profile has the read figure R, a kernel whose
loads are tile copies (it declares no bytes in flight per thread:
``Kernel.load_bytes_in_flight_per_thread``) pays C / R of the lane per byte read and
2 - C / R per byte written, so that a copy (equal bytes of each) still takes the copy's time
at bandwidth C. A kernel of register loads keeps its measured share by bytes in flight
(``dram_share_by_inflight``, a copy's share: ``prepare.dram_cost``) for both
(``prepare.dram_costs`` gives a kernel its pair).
"""

from __future__ import annotations

from gpusim.profiles.schema import HardwareProfile


def dram_mix(profile: HardwareProfile) -> tuple[float, float]:
    """(lane cost of a read byte, of a written byte) of a tile-copy kernel's DRAM traffic."""
    read = profile.dram_read_bandwidth_bytes_per_s
    if read is None:
        return (1.0, 1.0)
    r = profile.dram_bandwidth_bytes_per_s.value / read.value
    return (r, 2.0 - r)
