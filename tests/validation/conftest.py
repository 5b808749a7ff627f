"""A tiny synthetic dataset (two small runs, one with ncu counts) for the CPU tests, and the
committed H200 dataset simulated again with the current model (shared by the modules that
judge the model against it: tests/conftest.py keeps them on one xdist worker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.data.layout import VALIDATION_DRAM21
from gpusim.profiles.loader import load_profile
from gpusim.schedule import Schedule
from gpusim.validation.configs import ValidationConfig
from gpusim.validation.dataset import DATASET_KIND, SCHEMA, load_dataset, merge_records
from gpusim.validation.predicted_vs_measured import Row, compare_record
from gpusim.workload import Workload

ROOT = Path(__file__).resolve().parents[2]
#: The sweep at 788168b: SM-to-L2 bytes at both ends, 21 runs counted by Nsight (the
#: earlier datasets beside it count fewer runs, or only the L2 slices' end, and are kept as
#: evidence).
RECORDED_DATASETS = (VALIDATION_DRAM21 / "h200-dataset.json",)
#: The profile the README's validation figures are judged with.
RECORDED_PROFILE = "h200-sxm"

PROVENANCE = {
    "gpu_name": "NVIDIA H200",
    "sm_count": 132,
    "l2_bytes": 62914560,
    "date_utc": "2026-11-30T05:00:00+00:00",
    "git_commit": "abc1234",
    "cuda_runtime_version": 13020,
    "cupy_version": "14.2.0",
}


def small_configs() -> list[ValidationConfig]:
    """Two small flash2 runs (fast to simulate)."""
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    return [
        ValidationConfig(
            "flash2",
            Workload(batch=1, heads=4, seq_len_q=256, seq_len_k=256, head_dim=64, dtype="bf16"),
            s,
            ncu=True,
        ),
        ValidationConfig(
            "flash2",
            Workload(batch=1, heads=2, seq_len_q=128, seq_len_k=128, head_dim=64, dtype="fp32"),
            s,
        ),
    ]


def make_dataset(median_s: float = 20e-6) -> dict:
    """A dataset object whose runs all measured ``median_s``; the first has ncu counts."""
    recs = []
    for i, c in enumerate(small_configs()):
        rec = c.as_dict() | {
            "status": "ok",
            "median_s": median_s,
            "times_s": [median_s] * 3,
            "attributes": {"num_regs": 96, "shared_size_bytes": 0, "dynamic_smem_bytes": 40960},
        }
        if i == 0:
            rec["counts"] = {
                "dram_read_bytes": 4 * 256 * 64 * 2 * 3,
                "dram_write_bytes": 4 * 256 * 64 * 2,
                "l2_read_bytes_from_sm": 4 * 256 * 64 * 2 * 9,
                "l2_write_bytes_from_sm": 4 * 256 * 64 * 2,
                "gpu_time_s": median_s / 2,
                "kernels": [],
            }
        recs.append(rec)
    recs.append(
        {
            "id": "broken",
            "kind": "flash2",
            "workload": {},
            "schedule": {},
            "status": "failed",
            "error": "launch failed",
        }
    )
    return {
        "kind": DATASET_KIND,
        "schema": SCHEMA,
        "provenance": dict(PROVENANCE),
        "method": {"repeats": 3, "warmup": 1},
        "ncu": {"available": True},
        "records": recs,
    }


@pytest.fixture
def dataset_file(tmp_path: Path) -> Path:
    """The synthetic dataset written to a temporary folder."""
    p = tmp_path / "h200-dataset.json"
    p.write_text(json.dumps(make_dataset()))
    return p


def recorded_records() -> list[dict]:
    """The committed datasets' runs, merged as ``gpusim validate --from`` merges them."""
    records, _ = merge_records([(str(p), load_dataset(p)) for p in RECORDED_DATASETS])
    return records


@pytest.fixture(scope="session")
def recorded_rows() -> list[Row]:
    """Every measured run of the committed datasets compared with the current model (63
    simulations, the suite's costliest fixture: computed once per worker)."""
    profile = load_profile(RECORDED_PROFILE)
    return [compare_record(r, profile) for r in recorded_records() if r["status"] == "ok"]


@pytest.fixture(autouse=True)
def _own_prediction_cache(tmp_path_factory, monkeypatch):
    """Each test its own (empty) prediction cache: no test reads another's rows."""
    monkeypatch.setenv("GPUSIM_CACHE_DIR", str(tmp_path_factory.mktemp("prediction-cache")))


def measured_runs(folder: Path, card: str, n_runs: int) -> dict[str, dict]:
    """A measured set's ``runs.jsonl`` by run id, checked: measured on ``card`` (its
    provenance's GPU name), ``n_runs`` runs, every one ``ok``."""
    gpu = json.loads((folder / "provenance.json").read_text())["provenance"]["gpu_name"]
    assert card in gpu
    measured = {
        r["id"]: r for r in map(json.loads, (folder / "runs.jsonl").read_text().splitlines())
    }
    assert len(measured) == n_runs and all(r["status"] == "ok" for r in measured.values())
    return measured
