"""Held-out set 38 (PyTorch's bf16 backward with its step as nvcc compiles it): the committed
manifest is the module's draw, the draw is new, and the committed predictions of the models
are the code's (a run recomputed)."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import paper_sweep_measured, torch_heldout36, torch_heldout37
from gpusim.validation import torch_heldout38 as S

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout38/manifest_configs.json"
PREDICTIONS = REPO_ROOT / "reports/torch_heldout38"


def test_the_manifest_is_the_module_draw():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})


def test_the_draw_is_seeded_and_new():
    assert S.draw() == S.RUNS and S.draw(seed=37) == torch_heldout37.RUNS
    seen = {r["id"] for r in torch_heldout36.runs()} | {
        r["id"] for r in paper_sweep_measured.runs()
    }
    seen |= {r["id"] for r in torch_heldout37.manifest_runs(torch_heldout37.RUNS)}
    assert not seen & {r["id"] for r in S.manifest_runs(S.RUNS)}


def test_committed_predictions_are_the_code_s():
    """A short GQA d64 run's backward by the formulas and compiled, on both profiles."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b28h16kv4_n576_d64_bf16_c0"
    for profile in S.PROFILES:
        for model in ("formulas", "compiled"):
            doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
            assert doc["rule"] == S.RULE and doc["model"] == model
            assert len(doc["runs"]) == S.N_RUNS
            committed = {r["id"]: r for r in doc["runs"]}[rid]
            now = S.predict_run(runs[rid], profile, model)
            assert now["bwd_s"] == committed["bwd_s"], (profile, model)
            assert now["fwd_s"] == committed["fwd_s"], (profile, model)
