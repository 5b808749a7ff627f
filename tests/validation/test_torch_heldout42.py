"""Held-out set 42 (the default backward; a GQA group sum's tiles per head): the committed
manifest is the module's draw, the draw is new, the committed predictions are the code's, and
measured runs recompute."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import torch_heldout38, torch_heldout39, torch_heldout40, torch_heldout41
from gpusim.validation import torch_heldout42 as S
from tests.validation.conftest import measured_runs

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout42/manifest_configs.json"
PREDICTIONS = REPO_ROOT / "reports/torch_heldout42"
MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout42_measured"


def test_the_manifest_is_the_module_draw_and_new():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    assert S.draw() == S.RUNS and S.draw(seed=41) == torch_heldout41.RUNS
    seen = set()
    for m in (torch_heldout38, torch_heldout39, torch_heldout40, torch_heldout41):
        seen |= {r["id"] for r in m.manifest_runs(m.RUNS)}
    assert not seen & {r["id"] for r in doc["runs"]}


def test_committed_predictions_are_the_code_s():
    """A GQA d64 run's backward by both models, each on one profile."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b10h20kv5_n3328_d64_fp16_c0"
    for profile, model in zip(S.PROFILES, ("keys", "before"), strict=True):
        doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
        assert doc["rule"] == S.RULE and doc["model"] == model
        committed = {r["id"]: r for r in doc["runs"]}[rid]
        now = S.predict_run(runs[rid], profile, model)
        assert now["bwd_s"] == committed["bwd_s"], (profile, model)


def test_a_measured_gqa_backward_recomputed_with_the_default_and_without_the_head_keys():
    """The set came back on an H100: the default backward 4.3 % (mean -4.1 %), its GQA runs
    3.37 % with the head keys against 3.82 % without. A GQA d64 run of groups of 4 recomputed
    from the code: -9.2 % with them, -9.5 % without."""
    import gpusim
    from gpusim.engine.head_keys import head_keys
    from gpusim.validation.backward_heldout15 import backward_schedule, workload

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    run = {r["id"]: r for r in S.manifest_runs(S.RUNS)}["bwd_b2h24kv6_n5440_d64_bf16_c0"]
    w, s, t = workload(run, "bwd"), backward_schedule(run), measured[run["id"]]["bwd"]["median_s"]
    err = {}
    for on in (True, False):
        with head_keys(on):
            now = gpusim.simulate("flash2", w, s, "h100-sxm5", footprints="estimate")
        err[on] = now.runtime_s / t - 1
    assert -0.12 < err[True] < -0.06 and err[False] < err[True], err
