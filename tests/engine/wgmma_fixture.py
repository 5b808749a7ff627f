"""A test-only Hopper profile for the engine's wgmma mechanism: the shipped h200-sxm with
synthetic wgmma fields (labelled so), so the path's behaviour is tested apart from any run."""

from __future__ import annotations

from gpusim.profiles import load_profile
from gpusim.profiles.schema import HardwareProfile

SRC = "synthetic test values (tests/engine/wgmma_fixture.py), not a measurement"
ROWS = [[8, 900.0], [64, 3300.0], [96, 3500.0], [128, 3700.0], [256, 3900.0]]


def wgmma_profile(overlap: float = 0.5, burst_hz: float | None = None) -> HardwareProfile:
    data = load_profile("h200-sxm").model_dump(exclude_none=True)
    data.pop("sm_clock_wgmma_burst_hz", None)
    # the overlap-share step: without the softmax's measured cycles per instruction
    for groups in (2, 3):
        data.pop(f"wgmma_softmax_cycles_per_instr_{groups}_warpgroups", None)
    data |= {
        "name": "h200-wgmma-test",
        "wgmma_rate_by_n": {
            "value": {f"{d}/{a}": ROWS for d in ("fp16", "bf16") for a in ("smem", "reg")},
            "source": SRC,
        },
        "sm_clock_wgmma_load_hz": {"value": 1.6e9, "source": SRC},
        "wgmma_softmax_overlap_same_warpgroup": {"value": overlap, "source": SRC},
        "wgmma_softmax_overlap_two_warpgroups": {"value": overlap, "source": SRC},
    }
    if burst_hz is not None:
        data["sm_clock_wgmma_burst_hz"] = {"value": burst_hz, "source": SRC}
    return HardwareProfile.model_validate(data)
