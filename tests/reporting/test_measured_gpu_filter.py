"""The report's validation figure reads one GPU's datasets."""

import json

from gpusim.reporting.measured import DATASET_KIND, find_validation_datasets


def _dataset(path, gpu: str, date: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"kind": DATASET_KIND, "provenance": {"gpu_name": gpu, "date_utc": date}}
    path.write_text(json.dumps(doc))


def test_a_lent_cards_dataset_stays_out_of_the_majority_gpus_figure(tmp_path):
    _dataset(tmp_path / "h200/a/h200-dataset.json", "NVIDIA H200", "2026-11-30")
    _dataset(tmp_path / "h200/b/h200-dataset.json", "NVIDIA H200", "2026-12-02")
    _dataset(tmp_path / "h100/c/h100-dataset.json", "NVIDIA H100 80GB HBM3", "2026-12-05")
    found = find_validation_datasets(tmp_path)
    assert [p.parent.name for p in found] == ["a", "b"]
