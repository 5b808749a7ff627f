"""The model against the committed H200 datasets, recomputed on the CPU.

All 63 runs are simulated again with the current model (about 40 s on one core), as
``gpusim validate --from`` does for the report, and held to the issue's targets. The
regression tests hold the errors to the state recorded in ``reports/validation`` (the model
of 2026-11-30 with the L2's measured loss by depth, identical CTAs' measured time scatter and
the DRAM bandwidth that few bytes in flight reach), so that a change that makes the model
worse fails here even while the targets still hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.validation.compare import TARGETS, compare_record
from gpusim.validation.dataset import check_profile, load_dataset, merge_records

ROOT = Path(__file__).resolve().parents[2]
#: The sweep at 788168b: SM-to-L2 bytes at both ends, 21 runs counted by Nsight (the
#: earlier datasets beside it count fewer runs, or only the L2 slices' end, and are kept as
#: evidence).
DATASETS = (ROOT / "data/h200/2026-11-30_validation_dram21/h200-dataset.json",)
PROFILE = "h200-sxm-calibrated"

#: Recorded state of the 63 runs: the ceilings the regression tests allow, each a little
#: above what was recorded.
RECORDED_FLASH2_MAPE = 0.07  # recorded 0.064
RECORDED_FLASH2_MAX = 0.20  # recorded 0.176 (Br128 Bc64 w4 d128 N 512 causal)
RECORDED_STANDARD_MAPE = 0.15  # recorded 0.135 (was 1.45 before memory-level parallelism)
RECORDED_DRAM_MAX = 0.045  # recorded 0.037 (fp32 d128 N 8192)
RECORDED_L2_MAPE = 0.01  # recorded 0.005 over the 21 counted runs, at the SMs' end


def _records() -> list[dict]:
    records, _ = merge_records([(str(p), load_dataset(p)) for p in DATASETS])
    return records


@pytest.fixture(scope="module")
def rows():
    profile = load_profile(PROFILE)
    return [compare_record(r, profile) for r in _records() if r["status"] == "ok"]


def _mape(errs: list[float]) -> float:
    return sum(abs(e) for e in errs) / len(errs)


def test_datasets_are_complete_and_from_this_gpu():
    profile = load_profile(PROFILE)
    for path in DATASETS:
        check_profile(load_dataset(path), profile)  # raises for another GPU's data
    records = _records()
    assert len(records) >= 48
    failed = [r["id"] for r in records if r["status"] != "ok"]
    assert not failed
    flash = [r for r in records if r["kind"] == "flash2"]
    assert {r["variant"] for r in flash} == {"tc", "simt"}
    assert {r["workload"]["head_dim"] for r in flash} == {64, 128}
    assert {r["workload"]["causal"] for r in flash} == {False, True}
    assert {r["workload"]["seq_len_q"] for r in flash} >= {512, 16384}
    assert sum(1 for r in records if r.get("counts")) >= 12
    std = [r for r in records if r["kind"] == "standard"]
    assert len(std) == 6 and all("torch" in r["gemm"]["gemm"] for r in std)


def test_runtime_no_worse_than_recorded(rows):
    flash = [r.runtime_err for r in rows if r.kind == "flash2"]
    std = [r.runtime_err for r in rows if r.kind == "standard"]
    assert len(rows) == 63
    assert _mape(flash) <= RECORDED_FLASH2_MAPE
    assert max(abs(e) for e in flash) <= RECORDED_FLASH2_MAX
    assert _mape(std) <= RECORDED_STANDARD_MAPE


def test_bytes_no_worse_than_recorded(rows):
    counted = [r.ncu for r in rows if r.ncu]
    assert len(counted) == 21
    assert all(n["l2_end"] == "sms" for n in counted)  # judged where the SMs count
    assert max(abs(n["dram_bytes_err"]) for n in counted) <= RECORDED_DRAM_MAX
    assert _mape([n["l2_bytes_err"] for n in counted]) <= RECORDED_L2_MAPE


def test_runtime_mape_target(rows):
    assert _mape([r.runtime_err for r in rows]) <= TARGETS["runtime_mape"]


def test_runtime_max_target(rows):
    assert max(abs(r.runtime_err) for r in rows) <= TARGETS["runtime_max_abs_err"]


def test_dram_bytes_target(rows):
    errs = [abs(r.ncu["dram_bytes_err"]) for r in rows if r.ncu]
    assert max(errs) <= TARGETS["dram_bytes_max_abs_err"]


def test_dram_bytes_within_target_but_one(rows):
    errs = [abs(r.ncu["dram_bytes_err"]) for r in rows if r.ncu]
    assert sum(e > TARGETS["dram_bytes_max_abs_err"] for e in errs) <= 1


def test_l2_bytes_target(rows):
    errs = [abs(r.ncu["l2_bytes_err"]) for r in rows if r.ncu]
    assert max(errs) <= TARGETS["l2_bytes_max_abs_err"]
