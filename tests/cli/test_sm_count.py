"""``--sm-count`` on simulate, tune and count: shown in the JSON; out of range, one line."""

from __future__ import annotations

import pytest

SMALL = ["--batch", "1", "--heads", "8", "--seq-len", "1024", "--dtype", "bf16"]


def test_simulate_runs_on_the_sms_asked_and_says_so(gpusim):
    full = gpusim("simulate", "-a", "flash2", *SMALL, "--json").json()
    part = gpusim("simulate", "-a", "flash2", *SMALL, "--sm-count", "8", "--json").json()
    assert (full["sm_count"], full["sm_count_overridden"]) == (132, False)
    assert (part["sm_count"], part["sm_count_overridden"]) == (8, True)
    assert part["runtime_s"] > 2 * full["runtime_s"]
    assert part["profile"] == full["profile"]


def test_count_and_tune_show_it(gpusim):
    c = gpusim("count", "-a", "flash2", *SMALL, "--sm-count", "16", "--json").json()
    assert (c["sm_count"], c["sm_count_overridden"]) == (16, True)
    t = gpusim("tune", *SMALL, "--block-m", "128", "--block-n", "64", "--sm-count", "16", "--json")
    assert t.code == 0, t.err
    assert t.json()["sm_count"] == 16
    text = gpusim("tune", *SMALL, "--block-m", "128", "--block-n", "64", "--sm-count", "16")
    assert "(16 SMs)" in text.out


@pytest.mark.parametrize("cmd", ["simulate", "tune", "count"])
@pytest.mark.parametrize("n", ["0", "133", "-1"])
def test_out_of_range_is_one_line_exit_2(gpusim, cmd, n):
    r = gpusim(cmd, *SMALL, "--sm-count", n)
    assert r.code == 2 and r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpusim: error: --sm-count"), r.err
    assert "1..132" in lines[0]
