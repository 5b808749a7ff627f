"""Held-out set 47 (PyTorch's forward at every length, the model as it stands): the committed
manifest is the module's draw and new; the committed predictions are the code's."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import torch_heldout36, torch_heldout44, torch_heldout45, torch_heldout46
from gpusim.validation import torch_heldout47 as S

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout47/manifest_configs.json"
PREDICTIONS = REPO_ROOT / "reports/torch_heldout47"


def test_the_manifest_is_the_module_draw_and_new():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    earlier = {r["id"] for m in (torch_heldout36, torch_heldout44, torch_heldout45, torch_heldout46)
               for r in m.manifest_runs(m.RUNS)}  # fmt: skip
    assert not earlier & {r["id"] for r in doc["runs"]}
    assert all(256 <= r["seq_len_q"] < 16384 for r in doc["runs"])
    assert {r["head_dim"] for r in doc["runs"]} >= {32, 64, 80, 128, 256}


def test_committed_predictions_are_the_code_s():
    """A short causal d64 run (448 tokens) by both models on the H100's profile (the card
    lent most): the charge makes it slower, and only the default charges it."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b18h40_n448_d64_fp16_c1"
    fwd = {}
    for profile in ("h100-sxm5",):
        for model in S.MODELS:
            doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
            assert doc["rule"] == S.RULE and doc["model"] == model
            committed = {r["id"]: r for r in doc["runs"]}[rid]
            now = S.predict_run(runs[rid], profile, model)
            assert (now["fwd_s"], now["bwd_s"]) == (committed["fwd_s"], committed["bwd_s"])
            assert (now["fwd_cta_issue_per_warp"] is None) == (model == "nofetch"), model
            fwd[profile, model] = now["fwd_s"]
    assert fwd["h100-sxm5", "default"] > 1.05 * fwd["h100-sxm5", "nofetch"]


MEASURED = REPO_ROOT / "data/h200/2026-12-07_torch_heldout47_measured"


def test_two_measured_forwards_recomputed_and_the_rule_kept_the_charge():
    """The set came back on an H200: forward 6.6 % (mean -3.3 %) with the code charged, 7.6 %
    (-4.8 %) without, so the charge stays (CODE_FETCH on); issue 19's 7 % met on this set
    (the two short causal runs -38 % and -28 %, the other 18 within 9 %). Recomputed from the
    code: a short non-causal d192 grid and a long d32 GQA one, by both models."""
    from gpusim.validation.torch_kernel_code import CODE_FETCH
    from tests.validation.conftest import measured_runs

    measured = measured_runs(MEASURED, "H200", S.N_RUNS)
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    err = {}
    for rid in ("bwd_b43h20_n384_d192_fp16_c0", "bwd_b1h16kv4_n8256_d32_fp16_c0"):
        for model in S.MODELS:
            now = S.predict_run(runs[rid], "h200-sxm", model)
            err[rid, model] = now["fwd_s"] / measured[rid]["fwd"]["median_s"] - 1
    assert 0.03 < err["bwd_b43h20_n384_d192_fp16_c0", "default"] < 0.075, err
    assert 0.03 < err["bwd_b43h20_n384_d192_fp16_c0", "nofetch"] < 0.07, err
    assert -0.04 < err["bwd_b1h16kv4_n8256_d32_fp16_c0", "default"] < 0.0, err
    assert -0.045 < err["bwd_b1h16kv4_n8256_d32_fp16_c0", "nofetch"] < 0.0, err
    assert CODE_FETCH.on
