"""The fifth long-context held-out set: its manifest is the module's, none of its runs is in
an earlier set, every run is counted at exactly 64k or 128k tokens; and, measured, the K/V
trace with SM-mates recomputed from the code against the H200's DRAM bytes
(data/h200/2026-12-04_long_context_heldout5)."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.validation.long_context_configs import read_manifest
from gpusim.validation.long_context_heldout5 import RULE, heldout5_configs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h200/2026-12-04_long_context_heldout5"
EARLIER = (
    "2026-12-02_long_context",
    "2026-12-02_long_context_heldout",
    "2026-12-03_long_context_heldout2",
    "2026-12-03_long_context_heldout3",
    "2026-12-03_pack_gqa",
    "2026-12-04_launch_set",
    "2026-12-04_launch_set2",
    "2026-12-04_long_context_heldout4",
)


def test_manifest_is_the_module_set_with_its_rule():
    got = [c.config_id for c in read_manifest(DATA / "manifest_configs.json")]
    assert got == [c.config_id for c in heldout5_configs()]
    assert json.loads((DATA / "manifest_configs.json").read_text())["decision_rule"] == RULE


def test_no_run_is_in_an_earlier_set():
    earlier = set()
    for name in EARLIER:
        manifest = ROOT / "data/h200" / name / "manifest_configs.json"
        earlier |= {c.config_id for c in read_manifest(manifest)}
    assert not earlier & {c.config_id for c in heldout5_configs()}


def test_every_run_is_counted_at_the_target_lengths():
    configs = heldout5_configs()
    assert len(configs) == 24 and all(c.ncu for c in configs)
    assert {c.workload.seq_len_k for c in configs} == {65536, 131072}
