"""The fp32 product rate: what the recorded H200 run gives, and what the engine does with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.profile_writer import load_simt_mm
from gpusim.calibrate.simt_mm import profile_entry
from gpusim.engine.rates import rates_for
from gpusim.errors import GpusimError
from gpusim.profiles import load_profile

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_simt_mm/simt-mm-h200.json"
)


@pytest.fixture(scope="module")
def record():
    return json.loads(RECORD.read_text())


def test_every_shape_ran_with_finite_outputs_below_the_fp32_peak(record):
    peak = load_profile("h200-sxm").fp32_flops_per_clk_per_sm.value
    assert {(r["head_dim"], r["block_m"], r["block_n"], r["warps"]) for r in record["rows"]} == {
        (64, 64, 64, 8), (128, 64, 32, 8), (64, 64, 32, 4), (64, 64, 64, 4),
        (64, 128, 32, 8), (64, 128, 64, 8), (128, 64, 64, 8),
    }  # fmt: skip
    for r in record["rows"]:
        assert r["outputs_finite"]
        assert 0.3 * peak < r["flops_per_clk_per_sm"] < peak


def test_the_profile_rate_is_the_median_at_full_occupancy(record):
    entry = profile_entry(record)
    assert entry["value"] == 154.5
    assert "7 tile shapes" in entry["note"]
    assert load_profile("h200-sxm").simt_mma_flops_per_clk_per_sm.value == 154.5


def test_fp32_products_take_their_own_phase_at_the_measured_rate():
    cal = rates_for(load_profile("h200-sxm"), "fp32")
    plain = rates_for(load_profile("h200-sxm-datasheet"), "fp32")
    assert (cal.mma_pipe, plain.mma_pipe) == ("simt", "fp32")
    work = cal.work(mma_flops=1e6, fp32_ops=1e4, exp_ops=1e3, smem_bytes=0)
    assert work["tensor"] == 1e6 and work["fp32"] == 1e4
    assert cal.issue(1e6, 100.0) == 100.0  # the FFMAs are inside the measured rate
    assert cal.phases(work | {"issue": 100.0}) == [["tensor"], ["fp32", "sfu", "issue"]]
    assert cal.pipe_per_s["tensor"] == pytest.approx(154.5 * cal.clock_hz)
    assert cal.clock_hz == cal.base_clock_hz  # no tensor-core clock drop on the CUDA cores


def test_a_record_without_rows_is_refused(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    with pytest.raises(GpusimError, match="not a simt_mm record"):
        load_simt_mm(bad)
