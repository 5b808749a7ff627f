"""Held-out set 33 (the first wave's SM-mate age, from a loop with a softmax): its manifest is
the module's set under its rule, none of its runs was in an earlier set, and a sample of its
committed predictions is what the code gives."""

from __future__ import annotations

import json

import pytest

from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.mates_heldout33 import PROFILES, RULE, heldout33_configs
from tests.validation.heldout_sets import ROOT, assert_manifest_is, assert_none_in

FOLDER = "2026-12-06_mates_heldout33"
PREDICTIONS = ROOT / "reports/mates_heldout33/predictions.json"
#: a masked 128 x 64 grid and its 128 x 32 tile
SAMPLE = (
    "project_prefill_b1h38kv38_q1001k10240_c1_m128n64w4s2_sp1_fwd_lf",
    "project_prefill_b1h38kv38_q1001k10240_c1_m128n32w4s2_sp1_fwd_lf",
)


def test_the_manifest_is_the_module_set_and_new():
    configs = heldout33_configs()
    assert len(configs) == 32
    assert_manifest_is(FOLDER, configs, RULE)
    earlier = ("2026-12-06_inference_tuning_heldout29", "2026-12-06_partial_waves_heldout31",
               "2026-12-06_mates_heldout32")
    assert_none_in(earlier, configs)
    preds = json.loads(PREDICTIONS.read_text())
    assert preds["profiles"] == list(PROFILES)
    assert set(preds["by_config"]) == {c.config_id for c in configs}


@pytest.mark.parametrize("cid", SAMPLE)
def test_sampled_predictions_recomputed(cid):
    config = {c.config_id: c for c in heldout33_configs()}[cid]
    committed = json.loads(PREDICTIONS.read_text())["by_config"][cid]
    for name in PROFILES:
        got = predict_one(config, name)["runtime_s"]
        assert got == pytest.approx(committed[name]["runtime_s"], rel=1e-9)
