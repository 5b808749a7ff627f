"""Held-out set 40 (a compiled forward's per-CTA issue): the committed manifest is the
module's draw, the draw is new, and the committed predictions are the code's."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import torch_heldout38, torch_heldout39
from gpusim.validation import torch_heldout40 as S
from tests.validation.conftest import measured_runs

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


MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout40_measured"


def test_two_measured_forwards_recomputed_with_and_without_the_per_cta_issue():
    """The set came back on an H100: forward 5.5 % (mean -3.4 %) by counts, 5.3 % (-1.1 %)
    with the per-CTA issue, adopted. A short causal GQA d64 grid, which it moves most, and a
    long non-causal d128 one, which it hardly moves, recomputed with the default (on) and off."""
    import gpusim
    from gpusim.engine.cta_issue import cta_issue
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import schedule_before_set43
    from gpusim.validation.torch_heldout37 import binary_args

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    err = {}
    for rid in ("bwd_b9h16kv4_n896_d64_bf16_c1", "bwd_b15h20kv5_n2176_d128_bf16_c0"):
        w = workload(runs[rid], "fwd")
        for on in (True, False):
            with cta_issue(on):
                now = gpusim.simulate("flash2", w, schedule_before_set43(w), "h100-sxm5",
                                      **binary_args(runs[rid]))  # fmt: skip
            err[rid, on] = now.runtime_s / measured[rid]["fwd"]["median_s"] - 1
    assert 0.0 < err["bwd_b9h16kv4_n896_d64_bf16_c1", True] < 0.05, err
    assert -0.08 < err["bwd_b9h16kv4_n896_d64_bf16_c1", False] < -0.02, err
    for on in (True, False):
        assert -0.01 < err["bwd_b15h20kv5_n2176_d128_bf16_c0", on] < 0.04, err
