"""The queued launch set on a profile from a recorded launch run."""

from __future__ import annotations

import json

import pytest
import yaml

from gpusim.calibrate import queued_launch
from gpusim.data.layout import REPO_ROOT
from gpusim.profiles.loader import profile_path

RECORD = "data/h200/2026-12-04_launch_set/launch-h200.json"


def test_the_field_follows_the_launch_time_with_its_source():
    text = (REPO_ROOT / "hardware_profiles/h200-sxm-datasheet.yaml").read_text()
    record = json.loads((REPO_ROOT / RECORD).read_text())
    out = queued_launch.apply(text, record, RECORD)
    keys = list(yaml.safe_load(out))
    assert keys[keys.index("kernel_launch_overhead_s") + 1] == "kernel_queued_launch_s"
    entry = yaml.safe_load(out)["kernel_queued_launch_s"]
    assert 1e-6 < entry["value"] < 3e-6 and RECORD in entry["source"]
    assert f"# queued launch: {RECORD}" in out
    # Applied twice, the same profile.
    assert queued_launch.apply(out, record, RECORD) == out


def test_a_record_without_the_value_is_a_clear_error():
    text = profile_path("h200-sxm").read_text()
    with pytest.raises(ValueError, match="no launch value queued_second_launch_s"):
        queued_launch.apply(text, {"benchmarks": {"launch": {"values": {}}}}, "x.json")
