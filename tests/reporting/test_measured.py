"""Finding and reading what other tools recorded under reports/ (and nothing else)."""

from __future__ import annotations

import json

import pytest

from gpusim.reporting.measured import (
    find_tuning_proof,
    find_validation_datasets,
    load_tuning_proof,
    validation_runs,
    validation_work,
)


def test_nothing_recorded(tmp_path):
    assert find_validation_datasets(tmp_path) == []
    assert validation_runs(tmp_path) == ([], {})
    assert validation_work(tmp_path) == 0
    assert load_tuning_proof(tmp_path) is None


def test_only_files_of_the_right_kind_are_read(tmp_path):
    (tmp_path / "validation").mkdir()
    (tmp_path / "validation" / "summary.json").write_text(json.dumps({"kind": "other"}))
    (tmp_path / "validation" / "broken.json").write_text("{not json")
    assert find_validation_datasets(tmp_path) == []
    (tmp_path / "tuning").mkdir()
    proof = tmp_path / "tuning" / "h200_tuning_proof.json"
    proof.write_text(json.dumps({"kind": "gpusim tuning proof", "workloads": []}))
    assert find_tuning_proof(tmp_path) == proof
    record = load_tuning_proof(tmp_path)
    assert record["_facts"] == {"measured": "tuning/h200_tuning_proof.json", "predictions": None}


def test_a_dataset_is_judged_by_the_current_model(tmp_path):
    pytest.importorskip("gpusim.validation.predicted_vs_measured")
    from gpusim.reporting.points import Point, simulate_point

    rec = {
        "id": "flash2_small",
        "kind": "flash2",
        "variant": "tc",
        "workload": {
            "batch": 1,
            "heads": 2,
            "seq_len_q": 256,
            "seq_len_k": 256,
            "head_dim": 64,
            "dtype": "fp16",
            "causal": False,
        },
        "schedule": {
            "algorithm": "flash2",
            "block_m": 64,
            "block_n": 64,
            "warps": 4,
            "stages": 2,
            "warp_split": "split-q",
            "residency": "registers",
        },
        "status": "ok",
        "median_s": 1e-5,
    }
    failed = dict(rec, id="failed", status="failed", median_s=None)
    prov = {
        "gpu_name": "NVIDIA H200",
        "date_utc": "2026-01-01",
        "git_commit": "abc",
        "cuda_runtime_version": 12080,
        "cupy_version": "13",
    }
    data = {
        "kind": "gpusim validation dataset",
        "schema": 1,
        "provenance": prov,
        "records": [rec, failed],
    }
    (tmp_path / "validation").mkdir()
    (tmp_path / "validation" / "run1").mkdir()
    (tmp_path / "validation" / "run1" / "h200.json").write_text(json.dumps(data))
    assert validation_work(tmp_path) == 1  # no comparison recorded: simulated here
    runs, facts = validation_runs(tmp_path, jobs=1)
    [run] = runs
    assert run.runtime_s == 1e-5 and run.gpu == "NVIDIA H200"
    assert facts["ok"] == 1 and facts["records"] == 2
    assert facts["datasets"] == ["validation/run1/h200.json"]
    # Without kernel attributes the prediction is the plain simulation of that schedule.
    p = Point("flash2", facts["profile"], 1, 2, 256, 64, "fp16", False, 64, 64, 4, 2)
    assert run.predicted_runtime_s == simulate_point(p)["runtime_s"]


def test_a_recorded_comparison_is_read_not_recomputed(tmp_path):
    rec = {
        "id": "a",
        "kind": "flash2",
        "variant": "tc",
        "status": "ok",
        "median_s": 2e-3,
        "workload": {
            "batch": 2,
            "heads": 4,
            "seq_len_q": 512,
            "seq_len_k": 1024,
            "head_dim": 64,
            "dtype": "bf16",
            "causal": True,
        },
        "schedule": {"algorithm": "flash2", "block_m": 64, "block_n": 32},
    }
    prov = {
        "gpu_name": "NVIDIA H200",
        "date_utc": "d",
        "git_commit": "c",
        "cuda_runtime_version": 1,
        "cupy_version": "1",
    }
    data = {"kind": "gpusim validation dataset", "schema": 1, "provenance": prov, "records": [rec]}
    row = {
        "id": "a",
        "kind": "flash2",
        "variant": "tc",
        "measured_s": 2e-3,
        "predicted_s": 1e-3,
        "bound": "tensor",
        "ncu": {"dram_bytes_measured": 10.0, "dram_bytes_predicted": 11},
    }
    folder = tmp_path / "validation" / "run1"
    folder.mkdir(parents=True)
    (folder / "dataset.json").write_text(json.dumps(data))
    (folder / "comparison.json").write_text(
        json.dumps({"profile": "h200-sxm", "summary": {}, "rows": [row]})
    )
    assert validation_work(tmp_path) == 0
    [run], facts = validation_runs(tmp_path)
    assert facts["predictions"] == "validation/run1/comparison.json"
    assert run.workload.seq_len_k == 1024 and run.workload.causal  # from the dataset record
    assert (run.runtime_s, run.predicted_runtime_s) == (2e-3, 1e-3)
    assert (run.dram_bytes, run.predicted_dram_bytes) == (10.0, 11)
    assert run.profile == "h200-sxm"


def test_a_later_dataset_supersedes_an_earlier_measurement(tmp_path):
    def dataset(date, median_s, ids):
        prov = {
            "gpu_name": "NVIDIA H200",
            "date_utc": date,
            "git_commit": "c",
            "cuda_runtime_version": 1,
            "cupy_version": "1",
        }
        recs = [
            {
                "id": i,
                "kind": "flash2",
                "status": "ok",
                "median_s": median_s,
                "workload": {
                    "batch": 1,
                    "heads": 1,
                    "seq_len_q": 128,
                    "seq_len_k": 128,
                    "head_dim": 64,
                },
                "schedule": {"block_m": 64, "block_n": 64},
            }
            for i in ids
        ]
        return {
            "kind": "gpusim validation dataset",
            "schema": 1,
            "provenance": prov,
            "records": recs,
        }

    # The folder names sort the other way round: the date decides.
    for name, date, t, ids in (
        ("b_first", "2026-01-01", 1.0, ["x", "y"]),
        ("a_second", "2026-02-01", 2.0, ["y"]),
    ):
        (tmp_path / "validation" / name).mkdir(parents=True)
        (tmp_path / "validation" / name / "d.json").write_text(json.dumps(dataset(date, t, ids)))
    rows = [{"id": i, "kind": "flash2", "measured_s": 0.0, "predicted_s": 1.0} for i in ("x", "y")]
    (tmp_path / "validation" / "comparison.json").write_text(
        json.dumps({"profile": "h200-sxm-datasheet", "summary": {}, "rows": rows})
    )
    assert [p.parent.name for p in find_validation_datasets(tmp_path)] == ["b_first", "a_second"]
    runs, facts = validation_runs(tmp_path)
    assert facts["records"] == 2 and facts["date"] == "2026-02-01"
    assert [r.config_id for r in runs] == ["x", "y"]
