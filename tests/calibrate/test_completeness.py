"""One calibration gives the whole profile: every field the engine reads, each with its source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from gpusim.calibrate import completeness, profile_writer, suite
from gpusim.data.layout import REPO_ROOT
from gpusim.profiles.schema import HardwareProfile
from tests.calibrate.recorded_results import COMMITTED, DATASHEET, recorded_results

#: Where the engine and what it calls read a profile.
ENGINE_SOURCES = ("engine", "algorithms", "tuning", "occupancy.py")


def _base(name: str = DATASHEET) -> dict:
    return yaml.safe_load(profile_writer.base_profile_path(name).read_text())


def fields_the_engine_reads() -> set[str]:
    """Every profile field named as an attribute (``x.<field>``) in the engine's sources."""
    names = set(HardwareProfile.model_fields) - set(completeness.META)
    found = set()
    for part in ENGINE_SOURCES:
        root = REPO_ROOT / "gpusim" / part
        for path in [root] if root.is_file() else root.rglob("*.py"):
            for node in ast.walk(ast.parse(Path(path).read_text())):
                if isinstance(node, ast.Attribute) and node.attr in names:
                    found.add(node.attr)
    return found


def test_the_engine_reads_the_fields_a_calibration_gives_and_no_other():
    read = fields_the_engine_reads()
    assert len(read) > 30  # the scan finds the engine's reads, not nothing
    assert read - set(completeness.NOT_CALIBRATED) <= set(completeness.EXPECTED)


def test_the_profile_from_one_recorded_run_has_every_field_the_engine_reads():
    results = recorded_results()
    profile, replaced = profile_writer.build_profile(results, _base())
    HardwareProfile.model_validate(profile)
    assert completeness.missing(profile) == []
    for field in fields_the_engine_reads() - set(completeness.NOT_CALIBRATED):
        assert profile.get(field) is not None, field
    # Every measured field names the suite's benchmark; the rest are cited facts.
    for field in completeness.EXPECTED:
        entry = profile[field]
        sources = (
            [e["source"] for e in entry.values()] if "source" not in entry else [entry["source"]]
        )
        for source in sources:
            if field in completeness.CITED:
                assert source.startswith("NVIDIA"), (field, source)
            else:
                assert "gpusim calibrate " in source, (field, source)
    assert completeness.borrowed(profile, replaced) == []


def test_the_record_benchmarks_give_the_committed_profiles_values():
    profile, _ = profile_writer.build_profile(recorded_results(), _base())
    committed = yaml.safe_load(COMMITTED.read_text())
    for field in (
        "simt_mma_flops_per_clk_per_sm",
        "step_efficiency_1_warp_per_scheduler",
        "step_efficiency_2_warps_per_scheduler",
        "smem_fill_cost_per_byte",
        "cta_duration_scatter",
        "dram_share_by_inflight",
        "l2_fetch_bytes_per_byte_padded_row_copy",
    ):
        assert profile[field]["value"] == committed[field]["value"], field
    # The committed barrier line was rounded by hand (8 + 2 x warps); the fit is 8.33 + 1.95.
    assert profile["barrier_base_cycles"]["value"] == pytest.approx(8.33, abs=0.01)
    assert profile["barrier_cycles_per_warp"]["value"] == pytest.approx(1.954, abs=0.001)
    # The committed curve pools three ncu runs, this record two: the same edge.
    half = [
        next(d for d, v in p["l2_loss_by_depth"]["value"] if v >= 0.5) for p in (profile, committed)
    ]
    assert half[0] == pytest.approx(half[1], abs=2 << 20)
    assert "simt_mm.cu copies the product loop" in profile["simt_mma_flops_per_clk_per_sm"]["note"]


def test_a_failed_record_benchmark_leaves_its_fields_missing_and_says_so():
    profile, replaced = profile_writer.build_profile(recorded_results(("smem_fill",)), _base())
    assert completeness.missing(profile) == ["smem_fill_cost_per_byte"]
    assert "smem_fill_cost_per_byte" not in replaced


def test_values_kept_from_a_measured_base_profile_are_named():
    results = recorded_results(("simt_mm",))
    profile, replaced = profile_writer.build_profile(results, _base("h200-sxm-calibrated"))
    kept = completeness.borrowed(profile, replaced)
    assert [k.split(":")[0] for k in kept] == ["simt_mma_flops_per_clk_per_sm"]


def test_another_architecture_is_a_warning():
    results = recorded_results()
    assert completeness.architecture_warning(results, _base()) is None
    results["benchmarks"]["device"]["details"]["compute_capability"] = "8.9"
    assert "compute capability 8.9" in completeness.architecture_warning(results, _base())


def test_the_plan_gives_every_measured_field_once():
    doc = suite.plan(suite.BENCHMARKS, quick=False)
    given = [f for step in doc["benchmarks"].values() for f in step["fields"]]
    top = {g.split(".")[0] for g in given}
    assert len(given) == len(set(given))
    assert top == set(completeness.EXPECTED) - set(completeness.CITED)
    quick = suite.plan(suite.BENCHMARKS, quick=True)["benchmarks"]
    assert all("quick" in step for step in quick.values())
