"""Held-out set 39 (the backward's compiled default at d256 and fp16): the committed manifest
is the module's draw, the draw is new, and the committed predictions are the code's."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import torch_heldout38
from gpusim.validation import torch_heldout39 as S
from tests.validation.conftest import measured_runs

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout39/manifest_configs.json"
PREDICTIONS = REPO_ROOT / "reports/torch_heldout39"


def test_the_manifest_is_the_module_draw_and_new():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    assert S.draw() == S.RUNS and S.draw(seed=38) != S.RUNS
    assert {r[4] for r in S.RUNS} == {64, 128, 256} and {r[5] for r in S.RUNS} == {"bf16", "fp16"}
    seen = {r["id"] for r in torch_heldout38.manifest_runs(torch_heldout38.RUNS)}
    assert not seen & {r["id"] for r in doc["runs"]}


def test_committed_predictions_are_the_code_s():
    """A short d256 fp16 causal run by compiled (h100-sxm5) and the formulas (h200-sxm)."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b17h16_n960_d256_fp16_c1"
    # each model on one of the profiles (every pair would double the time for no new path)
    for profile, model in zip(S.PROFILES, ("compiled", "formulas"), strict=True):
        doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
        assert doc["rule"] == S.RULE and doc["model"] == model
        committed = {r["id"]: r for r in doc["runs"]}[rid]
        now = S.predict_run(runs[rid], profile, model)
        assert now["bwd_s"] == committed["bwd_s"], (profile, model)


MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout39_measured"


def test_a_measured_d256_backward_recomputed_with_the_default_and_the_formulas():
    """The set came back on an H100: the backward 15.3 % with the compiled default, 20.6 %
    with the formulas. A short causal d256 fp16 run recomputed from the code, both models."""
    import gpusim
    from gpusim.engine.head_keys import head_keys
    from gpusim.engine.product_groups import grouped
    from gpusim.validation.backward_heldout15 import backward_schedule, workload

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    rid = "bwd_b17h16_n960_d256_fp16_c1"
    run = {r["id"]: r for r in S.manifest_runs(S.RUNS)}[rid]
    w, s = workload(run, "bwd"), backward_schedule(run)
    t = measured[rid]["bwd"]["median_s"]
    source = s.model_copy(update={"instruction_counts": "formulas"})
    with grouped(False), head_keys(False):  # the model set 39 judged
        default = gpusim.simulate("flash2", w, s, "h100-sxm5", footprints="estimate").runtime_s
        formulas = gpusim.simulate("flash2", w, source, "h100-sxm5",
                                   footprints="estimate").runtime_s  # fmt: skip
    assert -0.13 < default / t - 1 < -0.08
    assert -0.16 < formulas / t - 1 < -0.11
