"""Quantities as a person reads them in a table: bytes in MB/GB (KiB/MiB for on-chip and
cache sizes), rates in TB/s, clocks in GHz, times in ms/us.

The unit follows the key's suffix (``_bytes``, ``_bytes_per_s``, ``_hz``, ``_s``), so JSON
keys and table cells stay in step without a table per command. Only tables use this; the
JSON keeps the raw numbers.
"""

from __future__ import annotations

from typing import Any

#: Decimal prefixes for traffic and rates (what profilers and datasheets print).
_DECIMAL = (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3))
#: Binary prefixes for sizes that hardware allocates in powers of two.
_BINARY = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
#: Parts of keys that name a capacity in powers of two (shared memory, caches), not traffic.
_BINARY_KEYS = (
    "smem_bytes",
    "smem_per",
    "smem_buffers",
    "l2_bytes",
    "carveout",
    "allocated",
    "sram_bytes",
)

#: Suffix of a key -> what its value measures; the first matching suffix wins.
_SUFFIXES = (
    ("_bytes_per_s", "rate"),
    ("_bytes_per_cta", "bytes"),
    ("_bytes_per_cta_allocated", "bytes"),
    ("_bytes", "bytes"),
    ("_hz", "clock"),
    ("_s", "time"),
)


def _measured_part(key: str) -> tuple[str, str | None]:
    """The dotted part of ``key`` that carries a unit (``smem_buffers_bytes`` of
    ``smem_buffers_bytes.Q``), and its kind."""
    for part in reversed(key.split(".")):
        for suffix, kind in _SUFFIXES:
            if part.endswith(suffix):
                return part, kind
    return key, None


def kind_of(key: str) -> str | None:
    """What ``key``'s value measures (``bytes``, ``rate``, ``clock``, ``time``), or None."""
    return _measured_part(key)[1]


def label_of(key: str) -> str:
    """``key`` without its unit suffix, words apart: ``dram_bandwidth_bytes_per_s`` ->
    ``dram bandwidth`` (the cell carries the unit)."""
    for suffix, _ in _SUFFIXES if kind_of(key) else ():
        if key.endswith(suffix):
            return key[: -len(suffix)].replace("_", " ")
    return key.replace("_", " ")


def _scaled(value: float, units: tuple[tuple[str, float], ...], base: str, digits: int) -> str:
    for unit, scale in units:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {unit}"
    return f"{value:.{digits}g} {base}"


def fmt_bytes(n: float, *, binary: bool = False) -> str:
    """``n`` bytes with a prefix: ``2.15 GB``, or ``128 KiB`` with ``binary``."""
    return _scaled(n, _BINARY if binary else _DECIMAL, "B", 3)


def fmt_rate(bytes_per_s: float) -> str:
    """A bandwidth: ``4.8 TB/s``."""
    return _scaled(bytes_per_s, _DECIMAL, "B", 3) + "/s"


def fmt_clock(hz: float) -> str:
    """A clock: ``1.98 GHz``."""
    return _scaled(hz, (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3)), "Hz", 3)


def fmt_time(s: float, digits: int = 4) -> str:
    """A duration to ``digits`` significant digits: ``2.941 ms``, ``685.4 us``."""
    if s == 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(s) >= scale:
            return f"{s / scale:.{digits}g} {unit}"
    return f"{s * 1e9:.{digits}g} ns"


def fmt_quantity(key: str, value: Any) -> str | None:
    """``value`` in the unit ``key``'s suffix names, or None when it has none (or is no number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    kind = kind_of(key)
    if kind == "bytes":
        name = _measured_part(key)[0]
        binary = name == "dram_bytes" or any(k in name for k in _BINARY_KEYS)
        return fmt_bytes(value, binary=binary)
    if kind == "rate":
        return fmt_rate(value)
    if kind == "clock":
        return fmt_clock(value)
    if kind == "time" and isinstance(value, float):
        return fmt_time(value)
    return None
