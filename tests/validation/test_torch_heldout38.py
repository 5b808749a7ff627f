"""Held-out set 38 (PyTorch's bf16 backward with its step as nvcc compiles it): the committed
manifest is the module's draw, the draw is new, and the committed predictions of the models
are the code's (a run recomputed)."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.validation import paper_sweep_measured, torch_heldout36, torch_heldout37
from gpusim.validation import torch_heldout38 as S
from tests.validation.conftest import measured_runs

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
    """A short GQA d64 run's backward by compiled (h100-sxm5) and the formulas (h200-sxm)."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b28h16kv4_n576_d64_bf16_c0"
    # each model on one of the profiles (every pair would double the time for no new path)
    for profile, model in zip(S.PROFILES, ("compiled", "formulas"), strict=True):
        doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
        assert doc["rule"] == S.RULE and doc["model"] == model
        assert len(doc["runs"]) == S.N_RUNS
        committed = {r["id"]: r for r in doc["runs"]}[rid]
        now = S.predict_run(runs[rid], profile, model)
        assert now["bwd_s"] == committed["bwd_s"], (profile, model)
        assert now["fwd_s"] == committed["fwd_s"], (profile, model)


MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout38_measured"


def test_two_measured_backwards_recomputed_with_the_default_and_the_formulas():
    """The set came back on an H100: the backward 20.9 % (mean -20.9 %) by the formulas,
    15.1 % (-15.1 %) compiled, so compiled became the default. Two runs recomputed from the
    code: the default schedule (no instruction_counts) is compiled, and both still fast."""
    import gpusim
    from gpusim.engine.head_keys import head_keys
    from gpusim.engine.product_groups import grouped
    from gpusim.validation.backward_heldout15 import backward_schedule, workload

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    err = {}
    for rid in ("bwd_b28h16kv4_n576_d64_bf16_c0", "bwd_b20h8_n832_d128_bf16_c0"):
        w, s = workload(runs[rid], "bwd"), backward_schedule(runs[rid])
        for name, sched in (("default", s), ("formulas", s.model_copy(
                update={"instruction_counts": "formulas"}))):  # fmt: skip
            with grouped(False), head_keys(False):  # the model set 38 judged
                now = gpusim.simulate("flash2", w, sched, "h100-sxm5", footprints="estimate")
            err[rid, name] = now.runtime_s / measured[rid]["bwd"]["median_s"] - 1
    assert -0.26 < err["bwd_b28h16kv4_n576_d64_bf16_c0", "default"] < -0.20, err
    assert -0.31 < err["bwd_b28h16kv4_n576_d64_bf16_c0", "formulas"] < -0.25, err
    assert -0.18 < err["bwd_b20h8_n832_d128_bf16_c0", "default"] < -0.12, err
    assert -0.22 < err["bwd_b20h8_n832_d128_bf16_c0", "formulas"] < -0.16, err
