"""The shared-memory release candidate (:mod:`gpusim.engine.smem_release`) as a profile variant,
for the held-out sets that judge it (21: new shapes, 22: SM partitions; both on the lent card).

A variant is a shipped profile with ``smem_sched_release_share`` written from the H200's
smem_overlap record (:func:`gpusim.calibrate.smem_overlap.release_entry`: 0.369), named
``<profile>-release``; its predictions are made with the mechanism on.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.profiles.schema import HardwareProfile, SourcedFraction

RECORD = "data/h200/2026-11-30_calibration_smem_overlap/smem-overlap-h200.json"
SUFFIX = "-release"


def release_field() -> SourcedFraction:
    """The share, as ``python -m gpusim.calibrate.smem_overlap``'s record gives it."""
    from gpusim.calibrate.smem_overlap import release_entry

    root = Path(__file__).resolve().parents[2]
    entry = release_entry(json.loads((root / RECORD).read_text()))
    return SourcedFraction(**(entry | {"source": f"{entry['source']} ({RECORD})"}))


def variant_profile(base: str) -> HardwareProfile:
    """Profile ``base`` with the share, named ``base-release``."""
    from gpusim.profiles.loader import load_profile

    got = load_profile(base)
    return got.model_copy(
        update={"name": base + SUFFIX, "smem_sched_release_share": release_field()}
    )
