"""Held-out set 16: its manifest is the module's draw under set 13's rule, and new."""

from __future__ import annotations

from gpusim.validation.inference_tuning_heldout16 import RULE, draw, heldout16_configs
from tests.validation.heldout_sets import assert_set_is_new

FOLDER = "2026-12-05_inference_tuning_heldout16"


def test_manifest_is_the_module_set_with_its_rule_and_new():
    assert_set_is_new(FOLDER, heldout16_configs(), RULE)


def test_the_workloads_are_the_seeded_draw_of_set_13s_kinds():
    drawn = draw()
    assert [w[0] for w in drawn] == ["decode"] * 3 + ["gqa_decode", "decode", "prefill"]
    assert draw() == drawn  # the seed fixes them
    assert all(w[2] % (w[2] // w[3]) == 0 for w in drawn)  # heads a multiple of the group
    assert drawn[3][2] > drawn[3][3] and drawn[4][4] > 1 and drawn[5][4] >= 256
