"""Held-out set 15: the committed manifest is the module's, valid for the device script."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.validation.backward_heldout15 import (
    PAPER_SWEEP,
    backward_schedule,
    main,
    manifest_runs,
)
from gpusim.validation.bwd_manifest import parse_manifest
from gpusim.validation.torch_flash_bwd_schedule import bwd_tiles

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "data/h200/2026-12-04_backward_heldout15/manifest_configs.json"
PREDICTIONS = ROOT / "reports/backward_heldout15/predictions.json"


def test_committed_manifest_is_the_sets_and_the_device_script_takes_it():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == manifest_runs()  # the set is fixed: the code cannot drift from it
    assert len(parse_manifest(doc)) == len(doc["runs"]) == 32
    assert len({r["id"] for r in doc["runs"]}) == 32
    # the FlashAttention-2 paper's sweep: 16k tokens per batch, hidden 2048
    for b, h, _kv, n, d, _dtype, _c in PAPER_SWEEP:
        assert b * n == 16384 and h * d == 2048


def test_model_is_given_pytorchs_backward_tiles():
    for run in manifest_runs():
        t, s = bwd_tiles(run["head_dim"], run["dtype"], run["causal"]), backward_schedule(run)
        assert (s.block_m, s.block_n, s.warps) == (t["block_m"], t["block_n"], t["warps"])
    d128 = next(r for r in manifest_runs() if r["head_dim"] == 128)
    assert (backward_schedule(d128).block_m, backward_schedule(d128).block_n) == (64, 128)


def test_every_run_has_a_committed_prediction(capsys):
    preds = json.loads(PREDICTIONS.read_text())
    assert [p["id"] for p in preds["runs"]] == [r["id"] for r in manifest_runs()]
    assert all(p["bwd_s"] > p["fwd_s"] > 0 for p in preds["runs"])
    assert main(["manifest", "--out", str(MANIFEST)]) == 2  # write-once
    assert "exists" in capsys.readouterr().err
