"""The model against the committed H200 datasets, recomputed on the CPU.

All 63 runs are simulated again with the current model (about 110 s of CPU, the suite's
costliest fixture, shared with test_l2_probe.py), as ``gpusim validate --from`` does for
the report, and held to the issue's targets. The regression tests hold the errors to the
figures the README quotes from ``reports/validation`` (the model of 2026-11-30 with the
L2's measured loss by depth, identical CTAs' measured time scatter and the DRAM bandwidth
that few bytes in flight reach), so that a change that makes the model worse fails here
even while the targets still hold."""

from __future__ import annotations

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.validation.dataset import check_profile, load_dataset
from gpusim.validation.predicted_vs_measured import TARGETS
from tests.validation.conftest import RECORDED_DATASETS as DATASETS
from tests.validation.conftest import RECORDED_PROFILE as PROFILE
from tests.validation.conftest import recorded_records as _records

#: The README's validation table for the 63 runs, each figure held at the precision it is
#: quoted (7.1 % allows up to 7.15 %), so that a change that makes the model worse fails
#: here even while the issue's targets still hold.
#: 6.2 % (6.18 % since held-out sets 21-22's shared-memory release; 6.36 % before it; 6.24 % before
#: held-out set 12, 6.22 % before 9, 6.83 % before 8, 7.19 % before 7)
README_RUNTIME_MAPE = 0.0625
#: 22.3 % (standard d64 N16384: 22.33 %; 22.05 % before held-out set 12, 22.02 % before set 9)
README_RUNTIME_MAX = 0.2235
#: 5.3 % (0.0534, since held-out sets 21-22's shared-memory release; 5.61 % before it, 5.41 %
#: before held-out set 12, 5.33 % before set 9, 6.28 % before set 8)
README_TC_MAPE = 0.0535
README_SIMT_MAPE = 0.0540  # 5.4 % (5.363 %; 5.589 % before held-out set 12, 5.457 % before 8)
#: 14.1 % (14.09 %; 13.61 % before held-out set 12, 13.96 % before set 9, 14.17 % before set 8;
#: 13.5 % before its later kernels were charged the queued launch, launch2; 145 % before
#: memory-level parallelism)
README_STANDARD_MAPE = 0.1415
#: 13.9 % (fp32 d64 N2048 128x64 w8 s3; before held-out set 9 14.1 %, Br128 Bc64 w4 d128 N 512
#: causal, 17.6 % before set 8, 18.3 % before set 7)
README_FLASH2_MAX = 0.1395
README_DRAM_MAPE = 0.0215  # 2.1 %
README_DRAM_MAX = 0.0375  # 3.7 % (fp32 d128 N 8192)
README_L2_MAPE = 0.0055  # 0.5 % over the 21 counted runs, at the SMs' end
README_L2_MAX = 0.0385  # 3.8 %


@pytest.fixture(scope="module")
def rows(recorded_rows):
    return recorded_rows


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
    assert len(rows) == 63
    assert _mape([r.runtime_err for r in rows]) <= README_RUNTIME_MAPE
    assert max(abs(r.runtime_err) for r in rows) <= README_RUNTIME_MAX
    tc = [r.runtime_err for r in rows if r.kind == "flash2" and r.variant == "tc"]
    simt = [r.runtime_err for r in rows if r.kind == "flash2" and r.variant == "simt"]
    std = [r.runtime_err for r in rows if r.kind == "standard"]
    assert (len(tc), len(simt), len(std)) == (41, 16, 6)
    assert _mape(tc) <= README_TC_MAPE
    assert _mape(simt) <= README_SIMT_MAPE
    assert _mape(std) <= README_STANDARD_MAPE
    assert max(abs(e) for e in tc + simt) <= README_FLASH2_MAX


def test_bytes_no_worse_than_recorded(rows):
    counted = [r.ncu for r in rows if r.ncu]
    assert len(counted) == 21
    assert all(n["l2_end"] == "sms" for n in counted)  # judged where the SMs count
    dram = [n["dram_bytes_err"] for n in counted]
    l2 = [n["l2_bytes_err"] for n in counted]
    assert _mape(dram) <= README_DRAM_MAPE and max(map(abs, dram)) <= README_DRAM_MAX
    assert _mape(l2) <= README_L2_MAPE and max(map(abs, l2)) <= README_L2_MAX


def test_runtime_mape_target(rows):
    assert _mape([r.runtime_err for r in rows]) <= TARGETS["runtime_mape"]


def test_runtime_max_target(rows):
    assert max(abs(r.runtime_err) for r in rows) <= TARGETS["runtime_max_abs_err"]


def test_dram_bytes_target(rows):
    """The README: all 21 counted runs within 5 %."""
    errs = [abs(r.ncu["dram_bytes_err"]) for r in rows if r.ncu]
    assert max(errs) <= TARGETS["dram_bytes_max_abs_err"]


def test_l2_bytes_target(rows):
    errs = [abs(r.ncu["l2_bytes_err"]) for r in rows if r.ncu]
    assert max(errs) <= TARGETS["l2_bytes_max_abs_err"]
