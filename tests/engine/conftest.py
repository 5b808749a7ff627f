"""Profiles and helpers of the engine tests: the shipped H200 and a small GPU for detailed runs."""

from __future__ import annotations

import pytest

from gpusim.profiles import load_profile
from gpusim.profiles.schema import HardwareProfile, Sourced


@pytest.fixture(scope="session")
def h200() -> HardwareProfile:
    """The H200 profile as shipped."""
    return load_profile("h200-sxm-datasheet")


def small_gpu(base: HardwareProfile, sms: int = 4) -> HardwareProfile:
    """``base`` cut down to ``sms`` SMs, with L2 and DRAM scaled alike (cheap detailed runs)."""
    frac = sms / base.sm_count.value
    src = "test: scaled from " + base.name

    def scaled(field, value):
        return Sourced[type(field.value)](value=type(field.value)(value), source=src)

    return base.model_copy(
        update={
            "name": f"{base.name}-{sms}sm",
            "sm_count": scaled(base.sm_count, sms),
            "l2_bytes": scaled(base.l2_bytes, base.l2_bytes.value * frac),
            "l2_bandwidth_bytes_per_s": scaled(
                base.l2_bandwidth_bytes_per_s, base.l2_bandwidth_bytes_per_s.value * frac
            ),
            "dram_bandwidth_bytes_per_s": scaled(
                base.dram_bandwidth_bytes_per_s, base.dram_bandwidth_bytes_per_s.value * frac
            ),
        }
    )


@pytest.fixture(scope="session")
def small(h200) -> HardwareProfile:
    """A 4-SM H200: L2 and DRAM bandwidth and L2 size in proportion."""
    return small_gpu(h200)


def inputs(algorithm: str, profile: str = "h200-sxm-datasheet", **kw):
    """Workload and schedule as the CLI builds them for ``profile`` (default blocks filled in)."""
    from gpusim.api import build_inputs

    args = {"batch": 1, "heads": 4, "seq_len": 512} | kw
    i = build_inputs(algorithm=algorithm, profile=profile, **args)
    return i.workload, i.schedule
