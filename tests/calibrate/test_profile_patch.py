"""Fields set on a written profile from a record of their own."""

from __future__ import annotations

import pytest
import yaml

from gpusim.calibrate.profile_patch import set_after

TEXT = "# written by a test\n# x: old.json\na: 1\nb:\n  value: 2\nc: 3\n"


def test_entries_follow_their_field_and_the_header_names_the_record():
    out = set_after(TEXT, "b", {"x": {"value": 9}}, "# x: new.json")
    assert list(yaml.safe_load(out)) == ["a", "b", "x", "c"]
    assert out.splitlines()[:2] == ["# written by a test", "# x: new.json"]
    # Set again, from another record: the entry moves nowhere and one header line remains.
    again = set_after(out, "b", {"x": {"value": 8}}, "# x: newer.json")
    assert list(yaml.safe_load(again)) == ["a", "b", "x", "c"]
    assert yaml.safe_load(again)["x"] == {"value": 8}
    assert [h for h in again.splitlines() if h.startswith("# x")] == ["# x: newer.json"]


def test_a_profile_without_the_field_is_an_error():
    with pytest.raises(ValueError, match="the profile has no d"):
        set_after(TEXT, "d", {"x": 1}, "# x: r.json")
