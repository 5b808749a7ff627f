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
