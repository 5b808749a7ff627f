"""Held-out set 28 (the tile stream's law scoped to what step_stream measured): its manifest and
predictions as committed before the measurement."""

from __future__ import annotations

import json

from gpusim.validation.inference_tuning_heldout28 import RULE, SEED, heldout28_configs
from tests.validation.heldout_sets import ROOT

MANIFEST = ROOT / "data/h200/2026-12-06_inference_tuning_heldout28/manifest_configs.json"
PREDICTIONS = ROOT / "reports/stream_heldout28/predictions.json"


def test_the_manifest_is_the_module_set_under_its_rule():
    doc = json.loads(MANIFEST.read_text())
    assert SEED == 28 and doc["decision_rule"] == RULE
    assert [c["id"] for c in doc["configs"]] == [c.config_id for c in heldout28_configs()]
    preds = json.loads(PREDICTIONS.read_text())
    assert set(preds["by_config"]) == {c.config_id for c in heldout28_configs()}
    assert preds["profiles"] == ["h100-sxm5", "h100-sxm5+stream", "h200-sxm", "h200-sxm+stream"]
