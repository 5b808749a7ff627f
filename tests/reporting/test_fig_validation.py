"""Figure 6a's data: errors of predicted against measured runs; nothing drawn without data."""

from __future__ import annotations

import pytest

from gpusim.reporting.fig_validation import PredictedVsMeasured, error_stats, rel_err
from gpusim.reporting.measured import MeasuredRun
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _run(i, variant, measured_s, predicted_s, dram=None, dram_pred=None):
    w = Workload(
        batch=4, heads=16, seq_len_q=1024 * (i + 1), seq_len_k=1024 * (i + 1), head_dim=128
    )
    return MeasuredRun(
        f"run{i}",
        "flash2",
        variant,
        w,
        Schedule(),
        "NVIDIA H200",
        "h200-sxm-datasheet",
        measured_s,
        predicted_s,
        "tensor",
        dram,
        dram_pred,
    )


def test_errors_per_run_and_overall():
    runs = [
        _run(0, "tc", 1.0, 1.1, dram=100, dram_pred=98),
        _run(1, "tc", 2.0, 1.8),
        _run(2, "simt", 4.0, 4.0),
    ]
    fig = PredictedVsMeasured(
        runs=runs, facts={"gpu": "NVIDIA H200", "profile": "h200-sxm-datasheet"}
    )
    data = fig.build({})
    assert data.drawable
    errs = {r["config_id"]: r["runtime_err"] for r in data.rows}
    assert errs == {"run0": pytest.approx(0.1), "run1": pytest.approx(-0.1), "run2": 0.0}
    s = data.summary
    assert s["runtime"]["n"] == 3
    assert s["runtime"]["mape"] == pytest.approx(0.2 / 3)
    assert s["runtime"]["max_abs_err"] == pytest.approx(0.1)
    assert s["dram_bytes"] == {
        "n": 1,
        "mape": pytest.approx(0.02),
        "max_abs_err": pytest.approx(0.02),
    }
    assert s["runtime_by_variant"]["simt"]["mape"] == 0.0
    assert s["worst"]["config_id"] in ("run0", "run1")
    assert "3 runs" in fig.describe(data)


def test_without_a_dataset_nothing_is_drawn_and_the_readme_says_so(tmp_path):
    fig = PredictedVsMeasured()
    data = fig.build({})
    assert not data.drawable and data.rows == []
    assert data.notes and "recorded under data/" in data.notes[0]
    assert "Not there yet" in fig.describe(data)
    (tmp_path / f"{fig.name}.png").write_bytes(b"stale")
    files = fig.write(data, tmp_path)
    assert not (tmp_path / f"{fig.name}.png").exists()  # a stale picture is removed
    assert [f.name for f in files] == [f"{fig.name}.csv"]


def test_rel_err_and_stats():
    assert rel_err(None, 1.0) is None and rel_err(1.0, 0) is None
    assert rel_err(1.5, 1.0) == 0.5
    assert error_stats([]) == {"n": 0, "mape": None, "max_abs_err": None}
    assert error_stats([-0.2, 0.1]) == {"n": 2, "mape": pytest.approx(0.15), "max_abs_err": 0.2}
