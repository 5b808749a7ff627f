"""Held-out set 49 (should the default profiles take the SM core model; fixed and predicted
2026-12-07 before any measurement): its manifest is set 30's generator drawn with seed 49
under the set's rule, its runs are new, and the committed predictions are the code's."""

from __future__ import annotations

import json

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.validation import default_core_heldout49 as S
from gpusim.validation.heldout_shapes import compiled_record, configs_from_manifest
from gpusim.validation.new_shapes_heldout30 import draw, heldout30_configs
from gpusim.validation.predicted_vs_measured import compare_record
from tests.validation.heldout_sets import ROOT

DATA = ROOT / "data/h200/2026-12-07_default_core_heldout49"
REPORT = ROOT / "reports/default_core_heldout49"


def test_the_manifest_is_the_draw_under_its_rule_and_new():
    doc = json.loads((DATA / "manifest_configs.json").read_text())
    assert doc["decision_rule"] == S.RULE and S.SHAPES == draw(49) != draw(30)
    ids = [c.config_id for c in configs_from_manifest(DATA / "manifest_configs.json")]
    assert ids == [c.config_id for c in S.heldout49_configs()] and len(ids) == 24
    assert not set(ids) & {c.config_id for c in heldout30_configs()}


@pytest.mark.parametrize("profile", ["h100-sxm5", "h200-sxm-core"])
def test_committed_predictions_are_the_code_s(profile):
    doc = json.loads((REPORT / f"predictions_{profile}.json").read_text())
    assert doc["profile"] == profile
    committed = {k: v["predicted_s"] for k, v in doc["predictions"].items()}
    configs = {c.config_id: c for c in S.heldout49_configs()}
    assert set(committed) == set(configs)
    hw = load_profile(profile)
    # a Bc 32 tile, a d64 128 x 64 tile the two models split on, an FFMA run
    for cid in ("flash2_fp16_d128_n3072k2688_c0_b7h32_m128n32w4s1",
                "flash2_fp16_d64_n6272_c0_b2h14_m128n64w4s2",
                "flash2_fp32_d64_n768k512_c0_b1h48_m128n64w8s2"):  # fmt: skip
        got = compare_record(compiled_record(configs[cid]), hw).predicted_s
        assert got == pytest.approx(committed[cid], rel=1e-6), cid
