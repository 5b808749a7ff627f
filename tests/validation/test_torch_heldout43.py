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


MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout43_measured"


def test_two_measured_forwards_recomputed_with_the_fit_and_compiled_counts():
    """The set came back on an H100: forward 7.7 % (mean -7.5 %) by the fit, 5.2 % (-2.3 %)
    compiled. Two d64 runs recomputed from the code: a long GQA one, -4.6 % by the fit and
    +6.5 % compiled, and a non-causal one of 48 heads, -12.6 % and -2.6 %."""
    import gpusim
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import schedule_before_set43
    from tests.validation.conftest import measured_runs

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    err = {}
    for rid in ("bwd_b1h16kv4_n15808_d64_bf16_c0", "bwd_b4h48_n9024_d64_bf16_c0"):
        w = workload(runs[rid], "fwd")  # predict_run's forward, without its backward
        for model in S.MODELS:
            s = schedule_before_set43(w)
            if model == "compiled":
                s = s.model_copy(update={"instruction_counts": "compiled"})
            now = gpusim.simulate("flash2", w, s, "h100-sxm5").runtime_s
            err[rid, model] = now / measured[rid]["fwd"]["median_s"] - 1
    assert -0.07 < err["bwd_b1h16kv4_n15808_d64_bf16_c0", "fit"] < -0.02, err
    assert 0.04 < err["bwd_b1h16kv4_n15808_d64_bf16_c0", "compiled"] < 0.09, err
    assert -0.15 < err["bwd_b4h48_n9024_d64_bf16_c0", "fit"] < -0.10, err
    assert -0.05 < err["bwd_b4h48_n9024_d64_bf16_c0", "compiled"] < 0.0, err


def test_the_default_forward_is_the_adopted_compiled_model():
    """Compiled won by the set's rule: PyTorch's schedule now gives the model that forward,
    so the default's prediction of a run is the compiled model's committed one."""
    import gpusim
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b20h24kv6_n832_d64_fp16_c0"
    doc = json.loads((PREDICTIONS / "predictions_h100-sxm5_compiled.json").read_text())
    committed = {r["id"]: r for r in doc["runs"]}[rid]["fwd_s"]
    w = workload(runs[rid], "fwd")
    assert gpusim.simulate("flash2", w, torch_flash_schedule(w), "h100-sxm5").runtime_s == committed
