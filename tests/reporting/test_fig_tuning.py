"""Figure 6b's data: predicted and measured tile maps and the proof's figures, from a record."""

from __future__ import annotations

import pytest

from gpusim.reporting.fig_tuning import TunerHeatmap, tile_grid, workload_label
from gpusim.schedule import Schedule
from gpusim.tuning.proof import evaluate
from gpusim.workload import Workload


def _record():
    tiles = [(64, 64, 4), (64, 64, 8), (128, 64, 4), (128, 128, 8)]
    pred = [3.0, 2.5, 1.0, 2.0]
    meas = [3.1, 2.6, 1.2, 1.1]
    rows = [
        {
            "schedule": Schedule(block_m=bm, block_n=bn, warps=w, stages=2).model_dump(),
            "predicted_s": p,
            "measured_s": m,
            "tuner_rejected": None,
        }
        for (bm, bn, w), p, m in zip(tiles, pred, meas, strict=True)
    ]
    w = Workload(batch=4, heads=16, seq_len_q=4096, seq_len_k=4096, head_dim=128, dtype="bf16")
    entry = {"workload": w.model_dump(), "sram_bytes": 232448, "schedules": rows}
    return {
        "kind": "gpusim tuning proof",
        "provenance": {"gpu_name": "NVIDIA H200"},
        "profile": "h200-sxm-datasheet",
        "workloads": [entry],
    }


def test_tile_grid_takes_the_best_over_warps_and_stages():
    entries = _record()["workloads"][0]["schedules"]
    assert tile_grid(entries, "predicted_s") == {(64, 64): 2.5, (128, 64): 1.0, (128, 128): 2.0}
    assert tile_grid(entries, "measured_s")[(64, 64)] == 2.6


def test_figures_are_the_proofs(tmp_path):
    record = _record()
    fig = TunerHeatmap(record=record)
    data = fig.build({})
    [p] = data.summary["workloads"]
    [expected] = evaluate(record)
    assert p["tuner_loss"] == expected.tuner_loss == pytest.approx(1.2 / 1.1 - 1)
    assert p["tuner_choice"] == [128, 64] and p["measured_best"] == [128, 128]
    assert p["spearman"] == expected.spearman
    assert len(data.rows) == 4
    assert (
        p["label"] == workload_label(record["workloads"][0]["workload"]) == "d128 N4096 B4 H16 bf16"
    )
    files = fig.write(data, tmp_path)
    assert (tmp_path / f"{fig.name}.png") in files
    assert "within 5% of the measured best in 0 of 1" in fig.describe(data)


def test_without_a_record_nothing_is_drawn():
    fig = TunerHeatmap(record=None)
    data = fig.build({})
    assert not data.drawable
    assert "Not there yet" in fig.describe(data)


def test_measured_maps_without_predictions(tmp_path):
    record = _record()
    for row in record["workloads"][0]["schedules"]:
        row["predicted_s"] = None
    fig = TunerHeatmap(record=record)
    data = fig.build({})
    assert data.summary["summary"] is None
    [p] = data.summary["workloads"]
    assert p["tuner_loss"] is None and p["measured_best"] == [128, 128]
    assert data.notes and "proof_report predict" in data.notes[0]
    assert "not there yet" in fig.describe(data)
    assert (tmp_path / f"{fig.name}.png") in fig.write(data, tmp_path)
