"""Held-out set 31 (partial waves): its manifest is the module's set under its rule, none of its
runs was in an earlier set, and a sample of its committed predictions is what the code gives."""

from __future__ import annotations

import json

import pytest

from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.partial_waves_heldout31 import PROFILES, RULE, heldout31_configs
from tests.validation.heldout_sets import ROOT, assert_manifest_is, assert_none_in

FOLDER = "2026-12-06_partial_waves_heldout31"
PREDICTIONS = ROOT / "reports/waves_heldout31/predictions.json"
#: the one-wave grid and the 1.32-wave one of the 128 x 64 tile (set 29's chunk's count)
SAMPLE = (
    "project_prefill_b1h44kv44_q768k8192_c0_m128n64w4s2_sp1_fwd_lf",
    "project_prefill_b1h58kv58_q768k8192_c0_m128n64w4s2_sp1_fwd_lf",
)


def test_the_manifest_is_the_module_set_and_new():
    configs = heldout31_configs()
    assert len(configs) == 20
    assert_manifest_is(FOLDER, configs, RULE)
    earlier = ("2026-12-06_inference_tuning_heldout25", "2026-12-06_inference_tuning_heldout28",
               "2026-12-06_inference_tuning_heldout29")
    assert_none_in(earlier, configs)
    preds = json.loads(PREDICTIONS.read_text())
    assert preds["profiles"] == list(PROFILES)
    assert set(preds["by_config"]) == {c.config_id for c in configs}


@pytest.mark.parametrize("cid", SAMPLE)
def test_sampled_predictions_recomputed(cid):
    config = {c.config_id: c for c in heldout31_configs()}[cid]
    committed = json.loads(PREDICTIONS.read_text())["by_config"][cid]
    for name in ("h100-sxm5", "h100-sxm5-core"):
        got = predict_one(config, name)["runtime_s"]
        assert got == pytest.approx(committed[name]["runtime_s"], rel=1e-9)
