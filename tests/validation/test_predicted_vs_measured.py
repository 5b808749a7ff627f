"""Errors, summaries and the real footprint handed to the simulator."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpusim.profiles.loader import load_profile
from gpusim.validation.measured_footprint import FLASH2_KERNEL, SOFTMAX_KERNEL, real_on_chip
from gpusim.validation.predicted_vs_measured import TARGETS, compare_record, rel_err, summary

from .conftest import make_dataset


@given(st.floats(1e-9, 1e3), st.floats(-0.9, 5.0))
def test_rel_err_inverts(measured, err):
    assert rel_err(measured * (1 + err), measured) == pytest.approx(err, abs=1e-9)


def test_rel_err_missing_values():
    assert rel_err(None, 1.0) is None
    assert rel_err(1.0, 0.0) is None


def test_real_footprint_from_records():
    rec = make_dataset()["records"][0]
    chips = real_on_chip(rec)
    chip = chips[FLASH2_KERNEL]
    assert (chip.regs_per_thread, chip.threads, chip.smem_bytes) == (96, 128, 40960)
    std = {
        "kind": "standard",
        "attributes": {
            SOFTMAX_KERNEL: {"num_regs": 32, "shared_size_bytes": 16, "dynamic_smem_bytes": 4096}
        },
    }
    assert real_on_chip(std)[SOFTMAX_KERNEL].smem_bytes == 4112
    assert real_on_chip({"kind": "flash2", "schedule": {"warps": 4}}) == {}


def test_compare_record_uses_the_real_registers():
    profile = load_profile("h200-sxm")
    rec = make_dataset()["records"][0]
    few = compare_record(rec, profile)
    rec["attributes"]["num_regs"] = 255  # 128 threads x 255 regs: fewer CTAs fit
    many = compare_record(rec, profile)
    assert few.regs_per_thread == 96 and many.regs_per_thread == 255
    assert many.ctas_per_sm < few.ctas_per_sm
    assert few.runtime_err == pytest.approx((few.predicted_s - 20e-6) / 20e-6)
    assert few.ncu is not None and few.ncu["dram_bytes_err"] is not None


def test_summary_and_targets():
    profile = load_profile("h200-sxm")
    recs = [r for r in make_dataset()["records"] if r["status"] == "ok"]
    rows = [compare_record(r, profile) for r in recs]
    # errors -4.8 % and +25 % (a hair under: p / (0.8 p) - 1 rounds either way of 0.25)
    for r, scale in zip(rows, (1.05, 0.8 + 1e-12), strict=True):
        r.measured_s = r.predicted_s * scale
        r.runtime_err = rel_err(r.predicted_s, r.measured_s)
    s = summary(rows)
    assert s["configs"] == 2
    assert s["runtime_mape"] == pytest.approx((1 / 1.05 - 1 - (1 / 0.8 - 1)) / -2, rel=1e-9)
    assert s["runtime_max_abs_err"] == pytest.approx(0.25)
    assert s["targets"]["runtime_max_abs_err"]["met"]  # exactly at the limit
    assert set(s["targets"]) == set(TARGETS)
    assert set(s["by_class"]["variant"]) == {"tc", "simt"}
    assert s["by_class"]["seq_len"]["128"]["n"] == 1
    assert s["ncu_configs"] == 1


def test_parallel_comparison_matches_serial():
    from gpusim.validation.predicted_vs_measured import compare_records

    profile = load_profile("h200-sxm")
    recs = make_dataset()["records"]
    serial = compare_records(recs, profile, jobs=1)
    parallel = compare_records(recs, profile, jobs=2)
    assert [r.id for r in parallel] == [r.id for r in serial]
    assert [r.predicted_s for r in parallel] == [r.predicted_s for r in serial]


def test_l2_bytes_judged_at_the_sms_end_when_recorded():
    profile = load_profile("h200-sxm")
    rec = make_dataset()["records"][0]
    slices_only = compare_record(rec, profile).ncu
    assert slices_only["l2_end"] == "slices"
    assert slices_only["l2_bytes_err"] == slices_only["l2_slice_bytes_err"]
    predicted = slices_only["l2_bytes_predicted"]
    # The SMs received exactly what the model moves; the slices counted fewer sectors.
    rec["counts"] |= {"sm_read_bytes_from_l2": predicted - 4096, "sm_write_bytes_to_l2": 4096}
    both = compare_record(rec, profile).ncu
    assert both["l2_end"] == "sms"
    assert both["l2_bytes_measured"] == predicted
    assert both["l2_bytes_err"] == pytest.approx(0.0)
    assert both["l2_slice_bytes_err"] == slices_only["l2_slice_bytes_err"]
