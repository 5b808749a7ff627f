"""Held-out set 43 (PyTorch's forward with compiled counts): the committed manifest is the
module's draw, the draw is new, and the committed predictions are the code's."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import (
    torch_heldout38,
    torch_heldout39,
    torch_heldout40,
    torch_heldout41,
    torch_heldout42,
)
from gpusim.validation import torch_heldout43 as S

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout43/manifest_configs.json"
PREDICTIONS = REPO_ROOT / "reports/torch_heldout43"


def test_the_manifest_is_the_module_draw_and_new():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    assert S.draw() == S.RUNS and S.draw(seed=42) == torch_heldout42.RUNS
    seen = set()
    for m in (torch_heldout38, torch_heldout39, torch_heldout40, torch_heldout41, torch_heldout42):
        seen |= {r["id"] for r in m.manifest_runs(m.RUNS)}
    assert not seen & {r["id"] for r in doc["runs"]}


def test_committed_predictions_are_the_code_s():
    """A short GQA d64 fp16 run's forward by both models, each on one profile."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b20h24kv6_n832_d64_fp16_c0"
    for profile, model in zip(S.PROFILES, ("compiled", "fit"), strict=True):
        doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
        assert doc["rule"] == S.RULE and doc["model"] == model
        committed = {r["id"]: r for r in doc["runs"]}[rid]
        now = S.predict_run(runs[rid], profile, model)
        assert now["fwd_s"] == committed["fwd_s"], (profile, model)
