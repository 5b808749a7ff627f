"""One consumer warpgroup's step record: its fit, its quick subset, and the profile field."""

import json

import pytest
import yaml

from gpusim.calibrate import records_stage, wgmma_step_one
from gpusim.data.layout import REPO_ROOT

RECORD = REPO_ROOT / "data/h100/2026-12-06_wgmma_step_one/wgmma-step-one.json"


def test_the_h100_record_gives_the_profiles_value_and_a_quick_subset_its_own_mean():
    doc = json.loads(RECORD.read_text())
    mean, each = wgmma_step_one.fitted(doc)
    assert round(mean, 4) == 1.9807 and len(each) == len(wgmma_step_one.SHAPES)
    assert all(1.0 < c < 3.0 for *_, c in each)
    quick = {
        **doc,
        "rows": [
            r
            for r in doc["rows"]
            if r["kind"] != "softmax"
            and (r["block_n"], r["head_dim"]) in wgmma_step_one.QUICK_SHAPES
        ],
    }
    q_mean, q_each = wgmma_step_one.fitted(quick)
    assert [(bc, d) for bc, d, _ in q_each] == list(wgmma_step_one.QUICK_SHAPES)
    assert q_mean == pytest.approx(sum(c for *_, c in q_each) / 2)
    with pytest.raises(ValueError, match="not a wgmma_step_one record"):
        wgmma_step_one.fitted({"kind": "other"})


def test_the_field_goes_after_the_three_warpgroup_one_and_calibrate_runs_it_quick():
    text = (REPO_ROOT / "hardware_profiles/h200-sxm.yaml").read_text()
    out = yaml.safe_load(wgmma_step_one.apply(text, json.loads(RECORD.read_text()), "r"))
    keys = list(out)
    field = wgmma_step_one.FIELD
    assert keys[keys.index("wgmma_softmax_cycles_per_instr_3_warpgroups") + 1] == field
    # c against the products at the profile's wgmma peak (decode set 5), not the products row
    assert out[field]["value"] == 2.1842 and "wgmma_step_one (r)" in out[field]["source"]
    assert "products at 4095.8 FLOP/clk/SM" in out[field]["note"]
    # each tile's own c beside it (decode set 4), keyed by d
    assert keys[keys.index(field) + 1] == wgmma_step_one.TILES
    tiles = out[wgmma_step_one.TILES]["value"]
    assert list(tiles) == ["64", "128", "256"] and tiles["256"] == [[64, 1.7105]]
    assert tiles["64"] == [[128, 2.5482], [192, 2.2805]]
    with pytest.raises(ValueError, match="no wgmma_flops_per_clk_per_sm"):
        wgmma_step_one.apply("name: x\n", json.loads(RECORD.read_text()), "r")
    plan = records_stage.plan(True)["wgmma_step_one"]
    assert plan["runs"] == "python -m gpusim.calibrate.wgmma_step_one --quick"


def test_the_record_alone_prints_what_apply_writes_into_the_shipped_profile(capsys):
    assert wgmma_step_one.main(["--record", str(RECORD)]) == 0
    printed = json.loads(capsys.readouterr().out)
    text = (REPO_ROOT / "hardware_profiles/h200-sxm.yaml").read_text()
    written = yaml.safe_load(wgmma_step_one.apply(text, json.loads(RECORD.read_text()), "r"))
    for field in (wgmma_step_one.FIELD, wgmma_step_one.TILES):
        assert printed[field]["value"] == written[field]["value"]
