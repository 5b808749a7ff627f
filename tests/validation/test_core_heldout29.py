"""Held-out set 29 (the SM core model against the pipe model on the lent card): its manifest
is the module's set under its rule, no run of it was in an earlier set, and its committed
predictions are what the code gives now, for a sample recomputed on both H100 profiles."""

from __future__ import annotations

import json

import pytest

from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.inference_tuning_heldout29 import PROFILES, RULE, SEED, heldout29_configs
from tests.validation.heldout_sets import ROOT, assert_manifest_is, assert_none_in

FOLDER = "2026-12-06_inference_tuning_heldout29"
PREDICTIONS = ROOT / "reports/core_heldout29/predictions.json"
#: one run of each kind the core model moves most or least: a 64 x 128 decode it speeds up,
#: a 128 x 64 decode it slows down, the prefill chunk's 64 x 128
SAMPLE = (
    "project_decode_b4h18kv18_q1k63488_c1_m64n128w4s2_sp1_fwd_lf",
    "project_decode_b4h21kv21_q1k29696_c1_m128n64w4s2_sp1_fwd_lf",
    "project_prefill_b2h29kv29_q739k22528_c1_m64n128w4s2_sp1_fwd_lf",
)


def test_the_manifest_is_the_module_set_and_new():
    assert SEED == 29
    configs = heldout29_configs()
    assert_manifest_is(FOLDER, configs, RULE)
    earlier = ("2026-12-05_inference_tuning_heldout16", "2026-12-06_inference_tuning_heldout23",
               "2026-12-06_inference_tuning_heldout25", "2026-12-06_inference_tuning_heldout28")
    assert_none_in(earlier, configs)
    preds = json.loads(PREDICTIONS.read_text())
    assert preds["profiles"] == list(PROFILES)
    assert set(preds["by_config"]) == {c.config_id for c in configs}


@pytest.mark.parametrize("cid", SAMPLE)
def test_sampled_predictions_recomputed_on_both_h100_profiles(cid):
    config = {c.config_id: c for c in heldout29_configs()}[cid]
    committed = json.loads(PREDICTIONS.read_text())["by_config"][cid]
    for name in ("h100-sxm5", "h100-sxm5-core"):
        got = predict_one(config, name)["runtime_s"]
        assert got == pytest.approx(committed[name]["runtime_s"], rel=1e-9)
    # the two profiles differ on these runs: the core model replays the compiled loop
    assert committed["h100-sxm5-core"]["runtime_s"] != committed["h100-sxm5"]["runtime_s"]


DATA = ROOT / "data/h100/2026-12-06_inference_tuning_heldout29"
#: (run, error on h100-sxm5, error on h100-sxm5-core), as measured 2026-12-06 on an H100
MEASURED_SAMPLE = (
    ("project_decode_b4h18kv18_q1k63488_c1_m64n128w4s2_sp1_fwd_lf", 0.1316, -0.0388),
    ("project_decode_b4h21kv21_q1k29696_c1_m128n64w4s2_sp1_fwd_lf", -0.0580, 0.0662),
    ("project_prefill_b2h29kv29_q739k22528_c1_m128n64w4s2_sp1_fwd_lf", 0.1302, 0.1693),
)


@pytest.mark.parametrize("cid,pipe_err,core_err", MEASURED_SAMPLE)
def test_sampled_runs_recomputed_against_the_h100(cid, pipe_err, core_err):
    from gpusim.validation import long_context_sweep

    config = {c.config_id: c for c in heldout29_configs()}[cid]
    measured = {r["id"]: r for r in long_context_sweep.records(DATA)}[cid]["median_s"]
    for name, err in (("h100-sxm5", pipe_err), ("h100-sxm5-core", core_err)):
        got = predict_one(config, name)["runtime_s"] / measured - 1
        assert got == pytest.approx(err, abs=0.005), name


def test_the_rule_recommends_the_core_profile_on_the_h100(tmp_path, monkeypatch):
    from gpusim.reporting import core_set

    monkeypatch.chdir(ROOT)  # the report names its measured folder as the README's command does
    out = tmp_path / "compare.json"
    assert core_set.main(["compare", "--measured", str(DATA.relative_to(ROOT)),
                          "--out", str(out)]) == 0  # fmt: skip
    assert out.read_text() == (ROOT / "reports/core_heldout29/compare.json").read_text()
    doc = json.loads(out.read_text())
    assert "H100" in doc["gpu"] and doc["decision"]["core_recommended"]
    pipe, core = (doc["profiles"][n] for n in ("h100-sxm5", "h100-sxm5-core"))
    assert core["runtime"]["mape"] < 0.045 < 0.057 < pipe["runtime"]["mape"]
    assert abs(core["runtime"]["mean_signed"]) < 0.01
    # the tuner target is still missed with both, on the prefill chunk
    assert not core["verdict"]["target_met"] and not pipe["verdict"]["target_met"]
    # both beat the baselines by far
    baselines = (doc["roofline"]["mape"], doc["constant_efficiency"]["mape"])
    assert min(baselines) > 5 * core["runtime"]["mape"]
