"""``sass_core_cycles``: the measured keys required, the local-memory pair and the co-resident
CTAs' phases optional, nothing else accepted."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gpusim.profiles.loader import load_profile
from gpusim.profiles.schema import SourcedCycles


def _cycles(**extra: float) -> dict:
    value = dict(load_profile("h200-sxm-core").sass_core_cycles.value) | extra
    return {"value": value, "source": "a test"}


def test_the_local_memory_pair_is_optional():
    assert SourcedCycles.model_validate(_cycles(local_latency=34.7, local_access=4.06))
    assert SourcedCycles.model_validate(_cycles())


def test_an_unknown_key_or_an_implausible_value_is_refused():
    with pytest.raises(ValidationError, match="unknown"):
        SourcedCycles.model_validate(_cycles(local_bandwidth=3.0))
    with pytest.raises(ValidationError, match="plausible"):
        SourcedCycles.model_validate(_cycles(local_latency=1e9))


def test_the_co_resident_phases_are_a_whole_number():
    assert SourcedCycles.model_validate(_cycles(co_resident_phases=1))
    for bad in (1.5, 0.5, 65):
        with pytest.raises(ValidationError, match="whole number"):
            SourcedCycles.model_validate(_cycles(co_resident_phases=bad))
