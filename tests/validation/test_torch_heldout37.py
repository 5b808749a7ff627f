"""Held-out set 37 (PyTorch's bf16 forward timed with its binary's own loop counts): the
committed manifest is the module's draw, the draw is new and within the committed dump's
instances, and the committed predictions of both models are the code's (a run recomputed)."""

from __future__ import annotations

import gzip
import json

from gpusim.data.layout import REPO_ROOT
from gpusim.reporting.torch_sass import RES_USAGE, SASS, torch_kernel
from gpusim.validation import paper_sweep_measured, torch_heldout36
from gpusim.validation import torch_heldout37 as S
from gpusim.validation.backward_heldout15 import workload
from gpusim.validation.torch_flash_schedule import torch_flash_schedule

MANIFEST = REPO_ROOT / "data/h200/2026-12-07_torch_heldout37/manifest_configs.json"
PREDICTIONS = REPO_ROOT / "reports/torch_heldout37"


def test_the_manifest_is_the_module_draw():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})


def test_the_draw_is_seeded_new_and_in_the_dump():
    assert S.draw() == S.RUNS and S.draw(seed=36) != S.RUNS
    seen = {r["id"] for r in torch_heldout36.runs()} | {
        r["id"] for r in paper_sweep_measured.runs()
    }
    runs = S.manifest_runs(S.RUNS)
    assert not seen & {r["id"] for r in runs}
    lengths = [r[3] for r in S.RUNS]
    assert all(length & (length - 1) for length in lengths)  # no power of two
    assert 5 <= sum(length % 128 != 0 for length in lengths) <= 15  # ragged and even instances
    text = gzip.decompress(SASS.read_bytes()).decode(errors="replace")
    for r in runs:  # every run's instance is in the committed dump
        w = workload(r, "fwd")
        assert torch_kernel(w, torch_flash_schedule(w)) in text, r["id"]
    assert RES_USAGE.is_file()


def test_committed_predictions_of_both_models_are_the_code_s():
    """A short causal d128 run's forward recomputed with both models on both profiles (the
    forward as :func:`~gpusim.validation.backward_heldout15.predict_run` and
    :func:`~gpusim.validation.torch_heldout37.predict_counts` simulate it)."""
    import gpusim

    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b13h12kv3_n640_d128_bf16_c1"
    w = workload(runs[rid], "fwd")
    for profile in S.PROFILES:
        for model, extra in (("fit", {}), ("counts", S.binary_args(runs[rid]))):
            doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
            assert doc["rule"] == S.RULE and doc["model"] == model
            assert len(doc["runs"]) == S.N_RUNS
            committed = {r["id"]: r for r in doc["runs"]}[rid]
            now = gpusim.simulate("flash2", w, torch_flash_schedule(w), profile, **extra)
            assert now.runtime_s == committed["fwd_s"], (profile, model)
