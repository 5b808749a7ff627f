"""``with_sm_count``: fewer SMs, everything else the profile's; out of range is one line."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.profiles import load_profile
from gpusim.profiles.sm_count import with_sm_count


def test_only_the_sm_count_changes_and_its_source_says_why():
    base = load_profile("h200-sxm-calibrated")
    p = with_sm_count(base, 16)
    assert p.sm_count.value == 16
    assert "--sm-count" in p.sm_count.source and "132" in p.sm_count.source
    a, b = p.model_dump(), base.model_dump()
    assert {k for k in a if a[k] != b[k]} == {"sm_count"}


def test_none_and_the_full_count_are_the_profile_itself():
    base = load_profile("h200-sxm")
    assert with_sm_count(base, None) is base
    assert with_sm_count(base, base.sm_count.value) is base


@pytest.mark.parametrize("n", [0, -8, 133, 1000])
def test_out_of_range_is_refused_with_the_range(n):
    with pytest.raises(GpusimError, match=r"--sm-count .* outside 1\.\.132"):
        with_sm_count(load_profile("h200-sxm"), n)


@pytest.mark.parametrize("n", [8.0, True, "8"])
def test_a_non_integer_is_refused(n):
    with pytest.raises(GpusimError, match="whole number"):
        with_sm_count(load_profile("h200-sxm"), n)
