"""The ragged-length look (PyTorch's d64 forward, B22 H12, 1408-1664 tokens): its manifest is the
module's, and the even and the ragged causal run recomputed against the H100's times."""

from __future__ import annotations

import json

import gpusim
from gpusim.data.layout import REPO_ROOT
from gpusim.validation import torch_ragged_look as L
from gpusim.validation.backward_heldout15 import workload
from gpusim.validation.torch_flash_schedule import schedule_before_set43

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_ragged_look/manifest_configs.json"
MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_ragged_look_measured/bwd"


def test_the_manifest_is_the_module_grid():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == L.runs() and len(doc["runs"]) == 10


def test_the_ragged_causal_instance_is_what_the_model_misses():
    """Causal at 1536 tokens (PyTorch's Is_even_MN instance) came back 11.5 % fast, at 1600
    (the ragged instance, 27 % more time a step) 32.0 % fast; recomputed from the code."""
    measured = {
        r["id"]: r for r in map(json.loads, (MEASURED / "runs.jsonl").read_text().splitlines())
    }
    assert all(r["status"] == "ok" for r in measured.values())
    runs = {r["id"]: r for r in L.runs()}
    err = {}
    for rid in ("bwd_b22h12_n1536_d64_fp16_c1", "bwd_b22h12_n1600_d64_fp16_c1"):
        w = workload(runs[rid], "fwd")  # the forward alone, as predict_run times it
        predicted = gpusim.simulate("flash2", w, schedule_before_set43(w), "h100-sxm5").runtime_s
        err[rid] = predicted / measured[rid]["fwd"]["median_s"] - 1
    assert -0.16 < err["bwd_b22h12_n1536_d64_fp16_c1"] < -0.07, err
    assert -0.37 < err["bwd_b22h12_n1600_d64_fp16_c1"] < -0.27, err
