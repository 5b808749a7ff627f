"""The seventh long-context held-out set: its manifest is the module's, none of its runs is in
an earlier set, every run is counted at exactly 64k or 128k tokens."""

from __future__ import annotations

from gpusim.validation.long_context_heldout7 import RULE, heldout7_configs
from tests.validation.heldout_sets import assert_set_is_new

FOLDER = "2026-12-05_long_context_heldout7"


def test_manifest_is_the_module_set_and_new():
    assert_set_is_new(FOLDER, heldout7_configs(), RULE)


def test_every_run_is_counted_at_the_target_lengths():
    configs = heldout7_configs()
    assert len(configs) == 21 and all(c.ncu for c in configs)
    assert {c.workload.seq_len_k for c in configs} == {65536, 131072}
    assert sum(c.kernel == "torch" for c in configs) == 4
