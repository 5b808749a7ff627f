"""Held-out set 34 (the tuner's whole candidate list): its manifest is the module's set under
its rule, none of its runs was in an earlier set, its committed predictions cover every run,
and each workload's runs are exactly the schedules ``gpusim tune`` ranks."""

from __future__ import annotations

import json

from gpusim.profiles.loader import load_profile
from gpusim.tuning.tuner import tune
from gpusim.validation.tuner_heldout34 import PROFILES, RULE, draw, heldout34_configs
from tests.tuning.conftest import closed_form_simulate
from tests.validation.heldout_sets import ROOT, assert_manifest_is, assert_none_in

FOLDER = "2026-12-06_tuner_heldout34"
PREDICTIONS = ROOT / "reports/tuner_heldout34/predictions.json"


def test_the_manifest_is_the_module_set_and_new():
    configs = heldout34_configs()
    assert len(configs) == 121
    assert_manifest_is(FOLDER, configs, RULE)
    earlier = ("2026-12-06_inference_tuning_heldout29", "2026-12-06_partial_waves_heldout31",
               "2026-12-06_mates_heldout32", "2026-12-06_mates_heldout33")  # fmt: skip
    assert_none_in(earlier, configs)
    preds = json.loads(PREDICTIONS.read_text())
    assert preds["profiles"] == list(PROFILES)
    assert set(preds["by_config"]) == {c.config_id for c in configs}
    assert all("runtime_s" in p for row in preds["by_config"].values() for p in row.values())


def _key(w) -> tuple:
    return (w.batch, w.heads, w.seq_len_q, w.seq_len_k, w.causal, w.head_dim)


def test_each_workload_runs_what_the_tuner_ranks():
    """The set's schedules of a workload are tune's candidates for it, neither more nor fewer
    (a closed-form engine: only the candidate list matters here)."""
    profile = load_profile(PROFILES[0])
    configs = heldout34_configs()
    for b, h, nq, nk, causal, d in draw()[:2]:
        key = (b, h, nq, nk, causal, d)
        mine = [c for c in configs if _key(c.workload) == key]
        ranked = tune("flash2", mine[0].workload, profile, simulate=closed_form_simulate)
        assert {c.schedule for c in mine} == {c.schedule for c in ranked.candidates}
        assert len(mine) == len(ranked.candidates) >= 20
