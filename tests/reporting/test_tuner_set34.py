"""Held-out set 34's candidate added before measurement (``tuner_set34 predict-partial``): its
committed predictions cover every run and are the current code's on a sample, and ``compare``
reports it beside the set's profiles, against the fixed rule of its base profile's SRAM."""

from __future__ import annotations

import json

from gpusim.profiles.loader import load_profile
from gpusim.reporting import tuner_set34
from gpusim.reporting.grouping_set35 import PARTIAL, partial_profile
from gpusim.reporting.profile_sets import predict_on
from gpusim.validation.tuner_heldout34 import heldout34_configs
from tests.validation.heldout_sets import ROOT

PARTIAL_FILE = ROOT / tuner_set34.PARTIAL_PREDICTIONS
NAME = tuner_set34.JUDGED + PARTIAL


def test_the_candidate_covers_every_run_under_its_own_name():
    preds = json.loads(PARTIAL_FILE.read_text())
    assert preds["profiles"] == [NAME]
    assert set(preds["by_config"]) == {c.config_id for c in heldout34_configs()}


def test_a_sample_recomputed_from_the_code_is_the_committed_candidate():
    preds = json.loads(PARTIAL_FILE.read_text())["by_config"]
    configs = heldout34_configs()
    sample = [configs[0], configs[60], configs[-1]]
    profile = partial_profile(load_profile(tuner_set34.JUDGED))
    got = predict_on(sample, {profile.name: profile})
    for c in sample:
        assert got[c.config_id][NAME]["runtime_s"] == preds[c.config_id][NAME]["runtime_s"]


def test_the_candidate_differs_from_its_base_where_grouping_differs():
    """The table moves 8-warp tiles (one CTA of eight warps is slower than two of four), so
    the candidate is not its base under another name."""
    base = json.loads((ROOT / tuner_set34.PREDICTIONS).read_text())["by_config"]
    cand = json.loads(PARTIAL_FILE.read_text())["by_config"]
    w8 = [k for k in cand if "w8s" in k]
    assert w8 and all(
        cand[k][NAME]["runtime_s"] > base[k][tuner_set34.JUDGED]["runtime_s"] for k in w8
    )


def test_compare_reports_the_candidate_beside_the_sets_profiles(tmp_path):
    """On a synthetic measured folder whose times are the base profile's predictions, the base
    ranks every workload exactly and the candidate is reported beside it under its own name."""
    base = json.loads((ROOT / tuner_set34.PREDICTIONS).read_text())
    cand = json.loads(PARTIAL_FILE.read_text())
    lines = [json.dumps({"id": i, "status": "ok", "median_s": row[tuner_set34.JUDGED]["runtime_s"]})
             for i, row in base["by_config"].items()]  # fmt: skip
    (tmp_path / "sweep.jsonl").write_text("\n".join(lines) + "\n")
    prov = {"provenance": {"gpu_name": "NVIDIA H100 80GB HBM3"}}
    (tmp_path / "provenance.json").write_text(json.dumps(prov))
    doc = tuner_set34.compare(tmp_path, base, extra=(cand,))
    assert doc["judged_profile"] == tuner_set34.JUDGED
    assert set(doc["profiles"]) == {*base["profiles"], NAME}
    judged = doc["profiles"][tuner_set34.JUDGED]
    assert judged["runtime"]["mape"] == 0.0
    assert all(w["spearman"] > 0.999 for w in judged["workloads"])
    assert doc["profiles"][NAME]["runtime"]["mape"] > 0.0
