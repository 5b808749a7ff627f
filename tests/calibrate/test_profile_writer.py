"""The profile writer: recorded results over a base profile give a schema-valid profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim.calibrate import (
    cta_life,
    dram_read,
    group_products,
    l2_shared_aging,
    load_clock,
    profile_writer,
    queued_launch,
    sm_mate_drift,
    wgmma_burst,
    wgmma_pingpong,
    wgmma_record,
    wgmma_step_one,
)
from gpusim.data.layout import CALIBRATION, REPO_ROOT, calibration_run
from gpusim.errors import GpusimError
from gpusim.profiles.loader import load_profile
from gpusim.profiles.schema import HardwareProfile
from tests.calibrate.sample_results import sample_results

RECORDED = CALIBRATION / "h200-results.json"
SIMT_MM = calibration_run("simt_mm") / "simt-mm-h200.json"
SMEM_OVERLAP = calibration_run("smem_overlap") / "smem-overlap-h200.json"
SMEM_FILL = calibration_run("smem_fill") / "smem-fill-h200.json"
L2_SURVIVE = [
    calibration_run("l2_survive") / f"l2-survive-{kind}-h200.json"
    for kind in ("fine", "writes", "hot")
]
CTA_SCATTER = calibration_run("cta_scatter") / "cta-scatter-h200.json"
DRAM_MLP = calibration_run("dram_mlp") / "dram-mlp-h200.json"


def _base() -> dict:
    return yaml.safe_load(profile_writer.base_profile_path("h200-sxm-datasheet").read_text())


def test_every_mapped_field_is_replaced_with_its_measured_source():
    profile, replaced = profile_writer.build_profile(sample_results(), _base())
    model = HardwareProfile.model_validate(profile)
    assert model.name == "h200-sxm-datasheet-calibrated"
    assert model.note is not None and model.note.startswith("Calibrated by gpusim calibrate")
    assert model.mma_sync_flops_per_clk_per_sm.fp16.value == 2660.0
    assert model.mma_sync_flops_per_clk_per_sm.fp16.source.startswith("measured on Test GPU")
    # The clock under tensor load is the tensor run's; the other one the pipe benchmarks'.
    assert model.sm_clock_tensor_load_hz.value == pytest.approx(1.786e9)
    assert model.sm_clock_hz.value == pytest.approx(1.96e9)
    assert model.smem_bandwidth_bytes_per_clk_per_sm.value == 127  # integer field, rounded
    assert set(replaced) >= {".".join(f.field) for f in profile_writer.FIELDS}
    # Fields no benchmark measures keep the base profile's value and source.
    base = HardwareProfile.model_validate(_base())
    assert model.registers_per_thread_max == base.registers_per_thread_max
    assert model.wgmma_flops_per_clk_per_sm == base.wgmma_flops_per_clk_per_sm


def test_failed_benchmark_keeps_base_values():
    profile, replaced = profile_writer.build_profile(sample_results(failed=("tensor",)), _base())
    base = HardwareProfile.model_validate(_base())
    model = HardwareProfile.model_validate(profile)
    assert model.mma_sync_flops_per_clk_per_sm == base.mma_sync_flops_per_clk_per_sm
    assert "mma_sync_flops_per_clk_per_sm.fp16" not in replaced
    # With the tensor run gone, there is no clock under tensor load; the other one stays.
    assert model.sm_clock_hz.value == pytest.approx(1.96e9)
    assert model.sm_clock_tensor_load_hz is None


@settings(max_examples=25, deadline=None)
@given(scale=st.floats(min_value=1e-3, max_value=1e3))
def test_any_positive_measurement_gives_a_valid_profile_or_a_clear_error(scale):
    if round(127.4 * scale) < 1:  # the integer shared-memory rate would round to zero
        with pytest.raises(GpusimError, match="lds128_bytes_per_clk_per_sm"):
            profile_writer.build_profile(sample_results(scale=scale), _base())
        return
    profile, _ = profile_writer.build_profile(sample_results(scale=scale), _base())
    model = HardwareProfile.model_validate(profile)
    assert model.dram_bandwidth_bytes_per_s.value == pytest.approx(4.2e12 * scale)


def test_written_yaml_loads_through_the_profile_loader(tmp_path):
    results = tmp_path / "r.json"
    results.write_text(json.dumps(sample_results()))
    out = tmp_path / "cal.yaml"
    profile_writer.write_profile(
        profile_writer.load_results(results), "h200-sxm-datasheet", out, str(results)
    )
    assert out.read_text().startswith("# Written by `gpusim calibrate`")
    assert load_profile(out).name == "h200-sxm-datasheet-calibrated"


def test_not_a_results_file_is_a_one_line_error(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    with pytest.raises(GpusimError, match="not a gpusim calibration results file"):
        profile_writer.load_results(bad)


@pytest.mark.skipif(not RECORDED.is_file(), reason="no recorded H200 calibration yet")
def test_recorded_h200_results_give_a_valid_profile():
    results = profile_writer.load_results(RECORDED)
    profile, replaced = profile_writer.build_profile(results, _base())
    model = HardwareProfile.model_validate(profile)
    assert "dram_bandwidth_bytes_per_s" in replaced
    assert model.sm_count.value == 132


COMMITTED = Path(__file__).resolve().parents[2] / "hardware_profiles" / "h200-sxm.yaml"
CORE = COMMITTED.with_name("h200-sxm-core.yaml")
SASS_TIMING = calibration_run("sass_timing") / "sass-timing-h200.json"
WGMMA = REPO_ROOT / wgmma_record.FOLDER / "wgmma-h200.json"
BURST_REL = "data/h200/2026-12-03_calibration_wgmma_burst/wgmma-burst-h200.json"
BURST = REPO_ROOT / BURST_REL
QUEUED_REL = "data/h200/2026-12-04_launch_set/launch-h200.json"
AGING_REL = "data/h200/2026-11-30_calibration_l2_survive/l2-survive-hot-h200.json"
DRIFT_REL = sm_mate_drift.RECORD
LOAD_CLOCK_REL = "data/h200/2026-12-04_calibration_load_clock/load-clock-h200.json"
CTA_LIFE_REL = "data/h200/2026-12-04_calibration_cta_life/cta-life-h200.json"
DRAM_READ_REL = "data/h200/2026-12-04_calibration_dram_read/dram-read-h200.json"
OVERLAP_REL = "data/h100/2026-12-06_wgmma_heldout7/ws"
STEP_ONE_REL = "data/h100/2026-12-06_wgmma_step_one"
GROUP_PRODUCTS_REL = "data/h100/2026-12-07_calibration_group_products/group-products-h100.json"


def _recorded_profile(name: str | None = None, sass_timing: dict | None = None) -> dict:
    results = profile_writer.load_results(RECORDED)
    simt_mm = profile_writer.load_simt_mm(SIMT_MM)
    overlap = profile_writer.load_record(SMEM_OVERLAP, "smem_overlap")
    fill = profile_writer.load_record(SMEM_FILL, "smem_fill")
    root = REPO_ROOT
    l2 = [
        (str(p.relative_to(root)), profile_writer.load_record(p, "l2_bytes", "records"))
        for p in L2_SURVIVE
    ]
    profile, _ = profile_writer.build_profile(
        results,
        _base(),
        simt_mm=simt_mm,
        smem_overlap=overlap,
        smem_fill=fill,
        l2_survive=l2,
        cta_scatter=profile_writer.load_record(CTA_SCATTER, "cta_scatter", "launches"),
        dram_mlp=profile_writer.load_record(DRAM_MLP, "dram_mlp"),
        name=name,
        sass_timing=sass_timing,
    )
    if WGMMA.is_file():  # the wgmma fields are set on the written profile by their own record
        record = json.loads(WGMMA.read_text())
        text = wgmma_record.apply(yaml.safe_dump(profile, sort_keys=False), record, str(WGMMA))
        profile = yaml.safe_load(text)
    if BURST.is_file():  # and the wgmma burst clock by its own
        record = json.loads(BURST.read_text())
        text = wgmma_burst.apply(yaml.safe_dump(profile, sort_keys=False), record, BURST_REL)
        profile = yaml.safe_load(text)
    # and the queued launch by a later launch run's (the suite's record predates it)
    record = json.loads((REPO_ROOT / QUEUED_REL).read_text())
    text = queued_launch.apply(yaml.safe_dump(profile, sort_keys=False), record, QUEUED_REL)
    # and the K/V trace's shared aging and SM-mates by their own records
    aging = json.loads((REPO_ROOT / AGING_REL).read_text())
    text = l2_shared_aging.apply(text, aging, AGING_REL)
    drift = sm_mate_drift.calibration(json.loads((REPO_ROOT / DRIFT_REL).read_text()))
    text = sm_mate_drift.apply(text, drift, DRIFT_REL)
    # and the clock under an attention step's load by load_clock's record
    record = json.loads((REPO_ROOT / LOAD_CLOCK_REL).read_text())
    text = load_clock.apply(text, record, LOAD_CLOCK_REL)
    # and the fragment and staged (16-byte) stores' costs by cta_life's record
    record = json.loads((REPO_ROOT / CTA_LIFE_REL).read_text())
    text = cta_life.apply(text, record, CTA_LIFE_REL)
    text = cta_life.apply(text, record, CTA_LIFE_REL, "16-byte")
    # and the DRAM read stream's bandwidth by dram_read's record
    record = json.loads((REPO_ROOT / DRAM_READ_REL).read_text())
    text = dram_read.apply(text, record, DRAM_READ_REL)
    # and the ping-pong softmax costs by the H100's overlap rows (held-out set 10 chose them;
    # the same GH100 SM: no H200 record has them yet)
    record = json.loads((REPO_ROOT / OVERLAP_REL / "wgmma-step.json").read_text())
    text = wgmma_pingpong.apply(text, record, OVERLAP_REL, "overlap")
    # and one warpgroup's step by the H100's wgmma_step_one record (wgmma decode set 3)
    record = json.loads((REPO_ROOT / STEP_ONE_REL / "wgmma-step-one.json").read_text())
    text = wgmma_step_one.apply(text, record, STEP_ONE_REL)
    # and the grouped products' kappa by the H100's group_products record (the same GH100 SM)
    record = json.loads((REPO_ROOT / GROUP_PRODUCTS_REL).read_text())
    profile = HardwareProfile.model_validate(yaml.safe_load(text))
    text = group_products.apply_field(text, record, GROUP_PRODUCTS_REL, profile)
    return yaml.safe_load(text)


def test_committed_calibrated_profile_is_what_the_recorded_results_give():
    assert yaml.safe_load(COMMITTED.read_text()) == _recorded_profile("h200-sxm")


def test_committed_core_profile_adds_the_core_cycles_and_nothing_else():
    timing = profile_writer.load_record(SASS_TIMING, "sass_timing", "rows")
    core = yaml.safe_load(CORE.read_text())
    assert core == _recorded_profile("h200-sxm-core", timing)
    plain = yaml.safe_load(COMMITTED.read_text())
    assert {k for k in core if core[k] != plain.get(k)} == {"name", "note", "sass_core_cycles"}


@pytest.mark.parametrize(
    ("option", "content", "message"),
    [
        ("dram_mlp_path", "{}", "not a dram_mlp record"),
        ("cta_scatter_path", '{"launches": [{"loop": "products"}]}', "gives no profile value"),
        ("cta_scatter_path", None, "cannot read the cta_scatter record"),
    ],
)
def test_a_bad_stand_alone_record_is_a_one_line_error(tmp_path, option, content, message):
    path = tmp_path / "record.json"
    if content is not None:
        path.write_text(content)
    results = profile_writer.load_results(RECORDED)
    with pytest.raises(GpusimError, match=message) as err:
        profile_writer.write_profile(
            results, "h200-sxm-datasheet", tmp_path / "p.yaml", None, **{option: path}
        )
    assert "\n" not in str(err.value)


def test_l2_survive_records_need_the_records_key(tmp_path):
    path = tmp_path / "l2.json"
    path.write_text('{"rows": [1]}')
    results = profile_writer.load_results(RECORDED)
    with pytest.raises(GpusimError, match="not a l2_bytes record"):
        profile_writer.write_profile(
            results, "h200-sxm-datasheet", tmp_path / "p.yaml", None, l2_survive_paths=[path]
        )
