"""What the compiler says about each kernel instance: registers per thread and spills.

The register estimate of the algorithms is a formula; ``ptxas -v`` on the real
instance (built offline with nvcc, no GPU needed: ``python -m gpusim.kernels.build``)
is a fact about the code that will run. For a search over kernel instances the
tuner uses it when it has it for the profile's architecture: the compiled
registers set the occupancy, and an instance that spills to local memory is
rejected, as the estimate's 255 cap does. These are compile-time numbers, not
timings: nothing here is fitted to the attention measurements that judge the model.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from gpusim.data.layout import KERNELS_BUILD

#: The offline build's ptxas report (``reports/kernels/README.md`` says how it is made).
PTXAS_REPORT = KERNELS_BUILD / "ptxas_and_sass.json"


@dataclass(frozen=True)
class Compiled:
    """ptxas's resource report for one instance."""

    arch: str  # e.g. "sm_90"
    registers: int
    spill_store_bytes: int
    spill_load_bytes: int

    @property
    def spills(self) -> bool:
        """Whether the instance moves registers to local memory."""
        return self.spill_store_bytes > 0 or self.spill_load_bytes > 0

    def spill_reason(self) -> str:
        """The rejection text for a spilling instance."""
        return (
            f"registers: the compiled instance spills ({self.arch} ptxas: {self.registers} "
            f"registers, {self.spill_store_bytes} B spill stores, {self.spill_load_bytes} B "
            f"spill loads)"
        )


def arch_of(compute_capability: str) -> str:
    """``"9.0"`` -> ``"sm_90"``."""
    major, minor = compute_capability.split(".")
    return f"sm_{major}{minor}"


@functools.cache
def _load(path: str) -> dict[str, Compiled]:
    p = Path(path)
    if not p.exists():
        return {}
    raw = json.loads(p.read_text()).get("ptxas", {})
    return {
        key: Compiled(
            rec.get("arch", "?"),
            int(rec["registers"]),
            int(rec.get("spill_store_bytes", 0)),
            int(rec.get("spill_load_bytes", 0)),
        )
        for key, rec in raw.items()
        if "registers" in rec
    }


def compiled_footprints(compute_capability: str, path: Path = PTXAS_REPORT) -> dict[str, Compiled]:
    """``{instance key: Compiled}`` for the profile's architecture (empty if not recorded)."""
    arch = arch_of(compute_capability)
    return {k: c for k, c in _load(str(path)).items() if c.arch == arch}
