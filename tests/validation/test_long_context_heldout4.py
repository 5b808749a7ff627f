"""The fourth long-context held-out set: its manifest is the module's, none of its runs is in
an earlier set, its DRAM runs are at exactly 64k and 128k tokens, and its decode runs walk
their keys backward (the walks whose chunks the engine now aligns)."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.validation.long_context_configs import read_manifest
from gpusim.validation.long_context_heldout4 import RULE, heldout4_configs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h200/2026-12-04_long_context_heldout4"
EARLIER = (
    "2026-12-02_long_context",
    "2026-12-02_long_context_heldout",
    "2026-12-03_long_context_heldout2",
    "2026-12-03_long_context_heldout3",
    "2026-12-03_pack_gqa",
    "2026-12-04_launch_set",
    "2026-12-04_launch_set2",
)


def test_manifest_is_the_module_set_with_its_rule():
    got = [c.config_id for c in read_manifest(DATA / "manifest_configs.json")]
    assert got == [c.config_id for c in heldout4_configs()]
    assert json.loads((DATA / "manifest_configs.json").read_text())["decision_rule"] == RULE


def test_no_run_is_in_an_earlier_set():
    earlier = set()
    for name in EARLIER:
        manifest = ROOT / "data/h200" / name / "manifest_configs.json"
        earlier |= {c.config_id for c in read_manifest(manifest)}
    assert not earlier & {c.config_id for c in heldout4_configs()}


def test_dram_runs_at_the_target_lengths_and_decodes_walk_backward():
    configs = heldout4_configs()
    counted = [c for c in configs if c.ncu]
    assert len(counted) == 25
    assert {c.workload.seq_len_k for c in counted} == {65536, 131072}
    decodes = [c for c in configs if not c.ncu]
    assert decodes and all(c.schedule.kv_order == "backward" for c in decodes)
