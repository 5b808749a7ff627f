"""Held-out set 50 (the tuner's whole candidate list, judged on the default set 49 leaves;
fixed and predicted 2026-12-07 before any measurement): its manifest is set 34's generator at
seed 50 under the set's rule, none of its runs was in set 34, and the committed predictions
cover every run and are the code's."""

from __future__ import annotations

import json

import pytest

from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.tuner_heldout34 import draw, heldout34_configs
from gpusim.validation.tuner_heldout50 import PROFILES, RULE, SEED, heldout50_configs
from tests.validation.heldout_sets import ROOT, assert_manifest_is

FOLDER = "2026-12-07_tuner_heldout50"
PREDICTIONS = ROOT / "reports/tuner_heldout50/predictions.json"


def test_the_manifest_is_the_draw_under_its_rule_and_new():
    configs = heldout50_configs()
    assert SEED == 50 and draw(50) != draw(34) and len(configs) == 122
    assert_manifest_is(FOLDER, configs, RULE)
    assert not {c.config_id for c in configs} & {c.config_id for c in heldout34_configs()}


def test_committed_predictions_are_the_code_s():
    doc = json.loads(PREDICTIONS.read_text())
    configs = {c.config_id: c for c in heldout50_configs()}
    assert doc["profiles"] == list(PROFILES) and set(doc["by_config"]) == set(configs)
    # the largest-tile schedule of a causal d64 workload and a small tile of a chunk
    for cid in ("project_prefill_b3h7kv7_q2985k2985_c1_m128n128w8s2_sp1_fwd_lf_d64",
                "project_prefill_b4h3kv3_q4016k14336_c0_m64n32w4s1_sp1_fwd_lf"):  # fmt: skip
        for profile in ("h100-sxm5", "h200-sxm-core"):
            got = predict_one(configs[cid], profile)["runtime_s"]
            want = doc["by_config"][cid][profile]["runtime_s"]
            assert got == pytest.approx(want, rel=1e-6), (cid, profile)
