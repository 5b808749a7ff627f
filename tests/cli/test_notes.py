"""What simulate warns about besides its result: here, the profile's fields the engine reads
and the profile lacks (one line on standard error, and lists in the JSON)."""

from __future__ import annotations

SMALL = ("--batch", "1", "--heads", "4", "--seq-len", "512", "--algorithm", "flash2")


def test_a_profile_without_some_fields_says_which_in_one_line(gpusim):
    r = gpusim("simulate", "--json", "--profile", "a100-sxm4-80gb", *SMALL)
    assert r.code == 0, r.err
    d = r.json()
    assert "barrier_base_cycles" in d["profile_missing_fields"]
    assert "kernel_launch_overhead_s" in d["profile_missing_fields"]
    assert d["profile_borrowed_fields"] == []
    lines = [ln for ln in r.err.splitlines() if "lacks" in ln]
    assert len(lines) == 1 and "barrier_base_cycles" in lines[0]
    assert any("lacks" in w for w in d["warnings"])


def test_the_measured_default_profile_lacks_nothing(gpusim):
    r = gpusim("simulate", "--json", *SMALL)
    assert r.code == 0, r.err
    d = r.json()
    assert d["profile_missing_fields"] == [] and d["profile_borrowed_fields"] == []
    assert "lacks" not in r.err


def test_profiles_shows_what_is_missing(gpusim):
    r = gpusim("profiles", "a100-sxm4-80gb", "--json")
    assert r.code == 0, r.err
    assert "barrier_base_cycles" in r.json()["missing_fields"]["a100-sxm4-80gb"]
    r = gpusim("profiles", "a100-sxm4-80gb")
    text = " ".join(r.out.replace("│", " ").split())  # the table wraps long cells
    assert "barrier_base_cycles" in text and "missing [the engine: barriers cost" in text
