"""cta_life's record: the stores' cost the profile takes, its physics, one-line errors."""

from __future__ import annotations

import json

import pytest
import yaml

from gpusim.calibrate.cta_life import (
    FIELD,
    apply,
    fragment_store_points,
    fragment_store_rate,
    groups,
    main,
    per_wave_s,
    stamp_summary,
    table,
)
from gpusim.data.layout import REPO_ROOT
from gpusim.profiles.schema import HardwareProfile

RECORD = REPO_ROOT / "data/h200/2026-12-04_calibration_cta_life/cta-life-h200.json"
PROFILE = REPO_ROOT / "hardware_profiles/h200-sxm.yaml"


@pytest.fixture(scope="module")
def doc():
    return json.loads(RECORD.read_text())


def test_the_stores_cost_the_sm_per_byte_whatever_the_other_sms_do(doc):
    pts = fragment_store_points(doc)
    assert len(pts) == 4
    rate = fragment_store_rate(doc)
    # about 2 cycles per 16-byte row piece: each shape within 12 % of the one rate
    assert 7.5 < rate < 9.5
    assert all(abs(b / c / rate - 1) < 0.12 for b, c in pts)
    # the same on 8 as on 66 SMs; a full wave of 132 pays more (the L2's partial writes)
    by = {}
    for r in doc["partial_rows"]:
        if r["store"] == "fragments" and r["consumers"] == 2 and r["head_dim"] == 128:
            by[r["grid"]] = r["stamps_last"]["store_cycles"]
    assert max(by[g] for g in (8, 16, 33, 66)) < 1.05 * min(by[g] for g in (8, 16, 33, 66))
    assert by[132] > 1.3 * by[66]


def test_per_wave_the_fragment_stores_cost_what_they_take(doc):
    g = groups(doc)
    extra = per_wave_s(g[(2, 128, "fragments", 8)]) - per_wave_s(g[(2, 128, "none", 8)])
    coalesced = per_wave_s(g[(2, 128, "16-byte", 8)]) - per_wave_s(g[(2, 128, "none", 8)])
    # 32 KiB at the rate, at the 1.97 GHz this light load ran at
    assert extra == pytest.approx(32768 / fragment_store_rate(doc) / 1.97e9, rel=0.15)
    assert coalesced < extra / 2


def test_the_profile_field_is_what_the_record_gives(doc):
    text = apply(PROFILE.read_text(), doc, "rec.json")
    profile = yaml.safe_load(text)
    assert profile[FIELD]["value"] == round(fragment_store_rate(doc), 3)
    assert "cta_life" in profile[FIELD]["source"]
    HardwareProfile.model_validate(profile)
    committed = yaml.safe_load(PROFILE.read_text())[FIELD]
    assert committed["value"] == profile[FIELD]["value"]


def test_the_readme_quotes_the_rate(doc):
    readme = (RECORD.parent / "README.md").read_text()
    assert f"{fragment_store_rate(doc):.2f} bytes per SM clock" in readme
    assert table(doc).splitlines()[0].startswith("| consumers")


def test_stamp_summary_measures_the_gap_to_the_next_cta_on_the_same_sm():
    s = stamp_summary([[0, 10, 20, 30, 1, 7], [35, 40, 50, 60, 1, 9], [0, 12, 22, 33, 2, 8]])
    assert s["gap_ns"] == 5 and s["sms"] == 2 and s["store_cycles"] == 8


def test_a_record_of_another_kind_is_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="not a cta_life record"):
        fragment_store_points({"kind": "x"})
    bad = tmp_path / "r.json"
    bad.write_text("{}")
    assert main(["--table", str(bad)]) == 2
    assert "not a recorded run" in capsys.readouterr().err
