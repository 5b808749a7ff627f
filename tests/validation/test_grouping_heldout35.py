"""Held-out set 35 (the step efficiency by CTA grouping): its manifest is the module's set under
its rule, none of its runs was in an earlier set (set 34 included), and its committed base
predictions cover every run on both H100 profiles."""

from __future__ import annotations

import json

from gpusim.validation.grouping_heldout35 import PROFILES, RULE, heldout35_configs
from gpusim.validation.tuner_heldout34 import heldout34_configs
from tests.validation.heldout_sets import ROOT, assert_manifest_is, assert_none_in

FOLDER = "2026-12-06_grouping_heldout35"
PREDICTIONS = ROOT / "reports/grouping_heldout35/predictions.json"


def test_the_manifest_is_the_module_set_and_new():
    configs = heldout35_configs()
    assert len(configs) == 122
    assert_manifest_is(FOLDER, configs, RULE)
    earlier = ("2026-12-06_inference_tuning_heldout29", "2026-12-06_partial_waves_heldout31",
               "2026-12-06_mates_heldout32", "2026-12-06_mates_heldout33")  # fmt: skip
    assert_none_in(earlier, configs)
    assert not {c.config_id for c in configs} & {c.config_id for c in heldout34_configs()}


def test_the_base_predictions_cover_every_run():
    preds = json.loads(PREDICTIONS.read_text())
    assert preds["profiles"] == list(PROFILES)
    assert set(preds["by_config"]) == {c.config_id for c in heldout35_configs()}
    assert all(p["runtime_s"] > 0 for row in preds["by_config"].values() for p in row.values())
