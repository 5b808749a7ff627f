"""Held-out set 46 (PyTorch's forward on short grids, its code fetched once per CTA): the
committed manifest is the module's draw, the draw is new and short."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import torch_heldout36, torch_heldout43, torch_heldout44, torch_heldout45
from gpusim.validation import torch_heldout46 as S

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout46/manifest_configs.json"


def test_the_manifest_is_the_module_draw_new_and_short():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    earlier = {r["id"] for m in (torch_heldout36, torch_heldout43, torch_heldout44, torch_heldout45)
               for r in m.manifest_runs(m.RUNS)}  # fmt: skip
    assert not earlier & {r["id"] for r in doc["runs"]}
    assert all(256 <= r["seq_len_q"] < 2048 for r in doc["runs"])
    assert sum(r["causal"] for r in doc["runs"]) == 15  # of 20, drawn at 0.75


PREDICTIONS = REPO_ROOT / "reports/torch_heldout46"


def test_committed_predictions_are_the_code_s():
    """A short causal d128 run's forward and backward by both models, on both profiles; the
    candidate charges the uneven d128 kernel's 8024 instructions once per CTA."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b26h8_n320_d128_fp16_c1"
    for profile in S.PROFILES:
        for model in S.MODELS:
            doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
            assert doc["rule"] == S.RULE and doc["model"] == model
            committed = {r["id"]: r for r in doc["runs"]}[rid]
            now = S.predict_run(runs[rid], profile, model)
            assert (now["fwd_s"], now["bwd_s"]) == (committed["fwd_s"], committed["bwd_s"])
            charged = now["fwd_cta_issue_per_warp"]
            assert (charged is None) == (model == "default"), model
            if model == "fetch":  # 125 KiB run straight: about a quarter more issue slots
                assert 0.2 * 8024 < charged < 0.5 * 8024


MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout46_measured"


def test_two_measured_forwards_recomputed_by_both_models_and_the_rule_adopted_fetch():
    """The set came back on an H100: forward 15.7 % (mean -13.3 %) by the default, 12.7 %
    (-9.5 %) with the code charged once per CTA, which the rule adopted (CODE_FETCH on).
    Recomputed from the code: two short causal d128 runs, uneven (320 tokens: -21.4 % ->
    -10.8 %) and even (384: -24.9 % -> -19.7 %)."""
    from gpusim.validation.torch_kernel_code import CODE_FETCH
    from tests.validation.conftest import measured_runs

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    err = {}
    for rid in ("bwd_b26h8_n320_d128_fp16_c1", "bwd_b21h24_n384_d128_bf16_c1"):
        for model in S.MODELS:
            now = S.predict_run(runs[rid], "h100-sxm5", model)
            err[rid, model] = now["fwd_s"] / measured[rid]["fwd"]["median_s"] - 1
    assert -0.24 < err["bwd_b26h8_n320_d128_fp16_c1", "default"] < -0.19, err
    assert -0.13 < err["bwd_b26h8_n320_d128_fp16_c1", "fetch"] < -0.08, err
    assert -0.27 < err["bwd_b21h24_n384_d128_bf16_c1", "default"] < -0.22, err
    assert -0.22 < err["bwd_b21h24_n384_d128_bf16_c1", "fetch"] < -0.17, err
    assert CODE_FETCH.on  # adopted
    assert all(r["tiles_match"] for r in measured.values())


def test_the_adopted_default_charges_the_code_and_earlier_sets_do_not():
    from gpusim.validation import backward_heldout15, torch_heldout45

    run = {r["id"]: r for r in S.manifest_runs(S.RUNS)}["bwd_b26h8_n320_d128_fp16_c1"]
    rec, fwd, _ = backward_heldout15.predict_torch_run(run, "h100-sxm5")
    assert rec["fwd_s"] == S.predict_run(run, "h100-sxm5", "fetch")["fwd_s"]
    assert fwd.count["schedule"]["cta_issue_per_warp"] > 0
    # set 45's committed prediction of its first run (a short causal d112) is kept
    r45 = torch_heldout45.manifest_runs(torch_heldout45.RUNS)[0]
    pinned = torch_heldout45.predict_run(r45, "h100-sxm5", "buckets")
    doc = REPO_ROOT / "reports/torch_heldout45/predictions_h100-sxm5_buckets.json"
    assert pinned["fwd_s"] == json.loads(doc.read_text())["runs"][0]["fwd_s"]
