"""Unknown algorithm and profile names: one line, the closest known names suggested."""

from __future__ import annotations

import pytest

from gpusim.api.names import algorithm_named, closest, profile_named
from gpusim.errors import GpusimError
from gpusim.profiles import load_profile


def test_closest_orders_by_likeness():
    assert closest("flash3", ["standard", "flash2", "flash1"])[:2] == ["flash2", "flash1"]
    assert closest("zzz", ["standard", "flash2"]) == []


@pytest.mark.parametrize(("name", "near"), [("flash3", "'flash2'"), ("flsh1", "'flash1'")])
def test_an_unknown_algorithm_suggests_the_closest(name, near):
    with pytest.raises(GpusimError) as e:
        algorithm_named(name)
    text = str(e.value)
    assert "\n" not in text and f"unknown algorithm {name!r}" in text
    assert f"did you mean {near}" in text


def test_an_unknown_profile_suggests_the_closest():
    with pytest.raises(GpusimError) as e:
        profile_named("h200-sx")
    text = str(e.value)
    assert "\n" not in text and "did you mean 'h200-sxm'" in text and "known: " in text


def test_a_profile_may_be_a_name_a_path_or_a_profile():
    hw = load_profile("a100-sxm4-80gb")
    assert profile_named(hw) is hw
    assert profile_named("a100-sxm4-80gb") == hw
    with pytest.raises(GpusimError, match="not found"):
        profile_named("no/such/profile.yaml")
    with pytest.raises(GpusimError, match="not int"):
        profile_named(3)  # type: ignore[arg-type]
