"""Held-out set 35's reporting (:mod:`gpusim.reporting.grouping_set35`): the partial-table
candidate's committed predictions cover every run and are the current code's on a sample, and
its table is the one the look on seen sets used."""

from __future__ import annotations

import json

from gpusim.engine.cta_grouping import FIELD
from gpusim.profiles.loader import load_profile
from gpusim.reporting.grouping_set35 import BASE, OUT, PARTIAL, partial_profile
from gpusim.reporting.profile_sets import predict_on
from gpusim.validation.grouping_heldout35 import heldout35_configs
from tests.validation.heldout_sets import ROOT

NAME = BASE + PARTIAL


def test_the_partial_candidate_covers_every_run_and_recomputes_on_a_sample():
    preds = json.loads((ROOT / OUT / "predictions_partial.json").read_text())
    configs = heldout35_configs()
    assert preds["profiles"] == [NAME]
    assert set(preds["by_config"]) == {c.config_id for c in configs}
    sample = [configs[1], configs[-2]]
    profile = partial_profile(load_profile(BASE))
    got = predict_on(sample, {NAME: profile})
    for c in sample:
        assert got[c.config_id][NAME]["runtime_s"] == preds["by_config"][c.config_id][NAME][
            "runtime_s"
        ]


def test_the_partial_table_is_the_looks():
    look = json.loads((ROOT / OUT / "look_seen.json").read_text())
    table = getattr(partial_profile(load_profile(BASE)), FIELD).value
    assert json.loads(json.dumps(table)) == look["table"]
