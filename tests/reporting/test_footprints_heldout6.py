"""Held-out set 6: its manifest is the module's with its rule, and (once measured) both
predictions recomputed from the code against the H200's times
(data/h200/2026-12-04_footprints_heldout6)."""

from __future__ import annotations

from gpusim.reporting.footprints_heldout6 import RULE, heldout6_configs
from tests.validation.heldout_sets import LONG_CONTEXT_SETS, assert_manifest_is, assert_none_in

FOLDER = "2026-12-04_footprints_heldout6"


def test_manifest_is_the_module_set_with_its_rule_and_new():
    assert_manifest_is(FOLDER, heldout6_configs(), RULE)
    assert_none_in(LONG_CONTEXT_SETS, heldout6_configs())


#: measured runs where the two occupancies differ most (2 -> 1 and 3 -> 2 CTAs per SM)
RECOMPUTED = (
    "project_prefill_b4h16kv16_q8192k8192_c0_m128n64w8s2_sp1_fwd_lf_d64",
    "project_prefill_b4h32kv32_q8192k8192_c1_m128n128w8s2_sp1_fwd_lf_d32",
    "project_prefill_b2h16kv16_q16384k16384_c0_m128n64w4s2_sp1_fwd_lf_d64",
)


def test_both_predictions_recomputed_against_the_h200():
    from gpusim.reporting.footprints_heldout6 import compare, predict
    from gpusim.reporting.pack_gqa import measured_s
    from tests.validation.heldout_sets import H200

    measured = measured_s(H200 / FOLDER)
    configs = [c for c in heldout6_configs() if c.config_id in RECOMPUTED]
    doc = compare(predict(configs), measured)
    s = doc["differ"]
    assert s["compiled"]["n"] == s["estimate"]["n"] == len(RECOMPUTED)
    # measured 2026-12-04: compiled -8.3, -7.0, -1.7 %; estimate -17.4, -15.8, -6.0 %
    assert s["compiled"]["mape"] < 0.07 < 0.11 < s["estimate"]["mape"]
    assert all(r["ctas_compiled"] < r["ctas_estimate"] for r in doc["rows"])
