"""The third long-context held-out set: its manifest is the module's, none of its runs is in
a set the K/V trace has seen, and (once measured) both K/V trace variants' DRAM bytes,
recomputed from the code, against Nsight Compute's (data/h200/2026-12-03_long_context_heldout3)."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.validation.long_context_configs import read_manifest
from gpusim.validation.long_context_heldout3 import RULE, heldout3_configs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h200/2026-12-03_long_context_heldout3"
SEEN = (
    "2026-12-02_long_context",
    "2026-12-02_long_context_heldout",
    "2026-12-03_long_context_heldout2",
)


def test_manifest_is_the_module_set_with_its_rule():
    got = [c.config_id for c in read_manifest(DATA / "manifest_configs.json")]
    assert got == [c.config_id for c in heldout3_configs()]
    assert json.loads((DATA / "manifest_configs.json").read_text())["decision_rule"] == RULE


def test_no_run_was_seen():
    seen = set()
    for name in SEEN:
        seen |= {
            c.config_id for c in read_manifest(ROOT / "data/h200" / name / "manifest_configs.json")
        }
    mine = {c.config_id for c in heldout3_configs()}
    assert len(mine) == 33 and not mine & seen
