"""load_clock's record: the README's table, the profile field it writes, one-line errors."""

from __future__ import annotations

import json

import pytest
import yaml

from gpusim.calibrate.load_clock import FIELD, STEP_VARIANT, apply, main, stream_clock, table
from gpusim.data.layout import REPO_ROOT
from gpusim.profiles.schema import HardwareProfile

RECORD = REPO_ROOT / "data/h200/2026-12-04_calibration_load_clock/load-clock-h200.json"
PROFILE = REPO_ROOT / "hardware_profiles/h200-sxm.yaml"


@pytest.fixture(scope="module")
def doc():
    return json.loads(RECORD.read_text())


def test_the_readme_table_is_the_records(doc):
    assert table(doc) in (RECORD.parent / "README.md").read_text()


def test_the_step_load_runs_below_the_products_only_clock(doc):
    hz, clocks = stream_clock(doc)
    assert len(clocks) == 20 and min(clocks) <= hz <= max(clocks)
    products_only = yaml.safe_load(PROFILE.read_text())["sm_clock_tensor_load_hz"]["value"]
    assert 1.7e9 < hz < products_only
    # streaming from DRAM beside the products costs far more than from the L2
    dram = next(r for r in doc["variants"] if r["variant"] == "products+softmax+DRAM stream")
    assert max(p["median_clock_hz"] for p in dram["protocol"]) < hz


def test_the_profile_field_is_what_the_record_gives(doc):
    text = apply(PROFILE.read_text(), doc, "rec.json")
    profile = yaml.safe_load(text)
    assert profile[FIELD]["value"] == stream_clock(doc)[0]
    assert STEP_VARIANT in profile[FIELD]["note"]
    HardwareProfile.model_validate(profile)
    keys = list(profile)
    assert keys.index(FIELD) == keys.index("sm_clock_tensor_load_hz") + 1


def test_a_file_that_is_no_record_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"kind": "something else"}))
    assert main(["--table", str(bad)]) != 0
    assert main(["--record", str(bad), "--profile", str(tmp_path / "p.yaml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.strip() for line in err)
