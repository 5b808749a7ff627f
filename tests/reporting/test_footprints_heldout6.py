"""Held-out set 6: its manifest is the module's with its rule, and (once measured) both
predictions recomputed from the code against the H200's times
(data/h200/2026-12-04_footprints_heldout6)."""

from __future__ import annotations

from gpusim.reporting.footprints_heldout6 import RULE, heldout6_configs
from tests.validation.heldout_sets import assert_manifest_is

FOLDER = "2026-12-04_footprints_heldout6"


def test_manifest_is_the_module_set_with_its_rule():
    assert_manifest_is(FOLDER, heldout6_configs(), RULE)
