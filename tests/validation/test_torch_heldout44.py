"""Held-out set 44 (PyTorch at head sizes 32, 160 and 192): the committed manifest is the
module's draw, the draw is new (no earlier PyTorch set drew these head sizes), and the set
predicts by the default model."""

from __future__ import annotations

import json

import pytest

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import (
    torch_heldout36,
    torch_heldout38,
    torch_heldout39,
    torch_heldout40,
    torch_heldout41,
    torch_heldout42,
    torch_heldout43,
)
from gpusim.validation import torch_heldout44 as S

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout44/manifest_configs.json"


def test_the_manifest_is_the_module_draw_and_new():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    assert {r["head_dim"] for r in doc["runs"]} == set(S.HEAD_DIMS)
    earlier = (torch_heldout36, torch_heldout38, torch_heldout39, torch_heldout40,
               torch_heldout41, torch_heldout42, torch_heldout43)  # fmt: skip
    seen_dims = {r["head_dim"] for m in earlier for r in m.manifest_runs(m.RUNS)}
    assert not seen_dims & set(S.HEAD_DIMS)


def test_only_the_default_model_is_predicted():
    run = S.manifest_runs(S.RUNS)[3]
    with pytest.raises(ValueError, match="default model only"):
        S.predict_run(run, "h100-sxm5", "fit")


def test_committed_predictions_are_the_code_s():
    """A short causal GQA d192 run (23 batches of 8 heads over 2, 1408 tokens), both profiles."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b23h8kv2_n1408_d192_bf16_c1"
    for profile in S.PROFILES:
        path = REPO_ROOT / f"reports/torch_heldout44/predictions_{profile}_default.json"
        doc = json.loads(path.read_text())
        assert doc["rule"] == S.RULE and doc["model"] == "default"
        committed = {r["id"]: r for r in doc["runs"]}[rid]
        now = S.predict_run(runs[rid], profile)
        assert (now["fwd_s"], now["bwd_s"]) == (committed["fwd_s"], committed["bwd_s"]), profile


MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout44_measured"


def test_two_measured_forwards_recomputed_by_the_default_model():
    """The set came back on an H100: forward 13.7 % (mean -10.6 %), its d160 runs 25-31 %
    fast (PyTorch ran them with its d192 kernel). Recomputed from the code: a short causal d32
    run, -4.7 %, and a short causal d160 one, -26.8 %."""
    import gpusim
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule
    from gpusim.validation.torch_head_buckets import binary_buckets
    from tests.validation.conftest import measured_runs

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    err = {}
    for rid in ("bwd_b21h12_n1536_d32_fp16_c1", "bwd_b10h12_n832_d160_bf16_c1"):
        w = workload(runs[rid], "fwd")
        with binary_buckets(False):  # the model as the set judged it
            s = torch_flash_schedule(w)
        now = gpusim.simulate("flash2", w, s, "h100-sxm5").runtime_s
        err[rid] = now / measured[rid]["fwd"]["median_s"] - 1
    assert -0.07 < err["bwd_b21h12_n1536_d32_fp16_c1"] < -0.02, err
    assert -0.30 < err["bwd_b10h12_n832_d160_bf16_c1"] < -0.23, err
    # the launch trace shows the d192 backward kernel for every d160 run
    for rid, r in measured.items():
        assert r["tiles_match"] == (runs[rid]["head_dim"] != 160), rid
