"""Held-out set 40 (a compiled forward's per-CTA issue): the committed manifest is the
module's draw, the draw is new, and the committed predictions are the code's."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import torch_heldout38, torch_heldout39
from gpusim.validation import torch_heldout40 as S

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout40/manifest_configs.json"
PREDICTIONS = REPO_ROOT / "reports/torch_heldout40"


def test_the_manifest_is_the_module_draw_and_new():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    assert S.draw() == S.RUNS and S.draw(seed=38) == torch_heldout38.RUNS
    seen = {r["id"] for r in torch_heldout38.manifest_runs(torch_heldout38.RUNS)}
    seen |= {r["id"] for r in torch_heldout39.manifest_runs(torch_heldout39.RUNS)}
    assert not seen & {r["id"] for r in doc["runs"]}


def test_committed_predictions_are_the_code_s():
    """A short causal GQA d64 run's forward by both models, each on one profile."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b9h16kv4_n896_d64_bf16_c1"
    for profile, model in zip(S.PROFILES, ("cta", "counts"), strict=True):
        doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
        assert doc["rule"] == S.RULE and doc["model"] == model
        committed = {r["id"]: r for r in doc["runs"]}[rid]
        now = S.predict_run(runs[rid], profile, model)
        assert now["fwd_s"] == committed["fwd_s"], (profile, model)
        assert (now["fwd_cta_issue_per_warp"] is None) == (model == "counts")
