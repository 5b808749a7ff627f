"""The hardware facts the engine once kept in code, now profile fields: sourced, consistent,
and on the H200 what its committed measurements say (the padded-row fetch factor's:
tests/calibrate/test_l2_bytes.py). The architecture's facts are required; the measured
ones (barrier cost, padded-row fetch factor) may be left out where no measurement of the
GPU exists, and then the engine says so (tests/profiles/test_gaps.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from gpusim.engine.rates import barrier_cycles
from gpusim.errors import GpusimError
from gpusim.profiles import list_profiles, load_profile, profile_path

REQUIRED = (
    "warp_size_threads",
    "warp_schedulers_per_sm",
    "issue_warp_instrs_per_clk_per_scheduler",
    "l2_line_bytes",
)
MEASURED = (
    "barrier_base_cycles",
    "barrier_cycles_per_warp",
    "l2_fetch_bytes_per_byte_padded_row_copy",
)
FIELDS = REQUIRED + MEASURED
ROOT = Path(__file__).resolve().parents[2]
BARRIER = ROOT / "data" / "h200" / "2026-11-30_barrier_cost" / "barrier_cost_h200.json"


def _h200_data() -> dict:
    return yaml.safe_load(profile_path("h200-sxm-datasheet").read_text())


def _load(tmp_path: Path, data: dict):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_profile(path)


@pytest.mark.parametrize("field", REQUIRED)
def test_a_profile_without_the_field_is_a_one_line_error_naming_it(tmp_path, field):
    data = _h200_data()
    data.pop(field)
    with pytest.raises(GpusimError) as info:
        _load(tmp_path, data)
    assert re.fullmatch(rf"bad\.yaml: {field}: missing \(required\)", str(info.value))


@pytest.mark.parametrize("field", FIELDS)
def test_the_field_needs_a_source(tmp_path, field):
    data = _h200_data()
    data[field].pop("source")
    with pytest.raises(GpusimError, match=rf"^bad\.yaml: {field}\.source: missing"):
        _load(tmp_path, data)


@pytest.mark.parametrize(
    ("field", "value"),
    [("warp_schedulers_per_sm", 0), ("l2_line_bytes", 1 << 20),
     ("l2_fetch_bytes_per_byte_padded_row_copy", 0.5), ("barrier_base_cycles", 1e9)],
)  # fmt: skip
def test_implausible_values_are_refused(tmp_path, field, value):
    data = _h200_data()
    data[field]["value"] = value
    with pytest.raises(GpusimError, match=rf"^bad\.yaml: {field}\.value: "):
        _load(tmp_path, data)


def test_the_barrier_fit_is_both_fields_or_neither(tmp_path):
    data = _h200_data()
    data.pop("barrier_base_cycles")
    with pytest.raises(GpusimError, match=r"^bad\.yaml: barrier_cycles_per_warp: give both"):
        _load(tmp_path, data)
    data.pop("barrier_cycles_per_warp")
    p = _load(tmp_path, data)
    assert p.barrier_base_cycles is None and barrier_cycles(p, 8) == 0.0


@pytest.mark.parametrize("name", list_profiles())
def test_every_profile_has_the_fields_and_says_where_they_come_from(name):
    p = load_profile(name)
    for field in FIELDS:
        q = getattr(p, field)
        if q is None:
            assert field in MEASURED, f"{name}: {field}"
            continue
        assert len(q.source) > 20, f"{name}: {field}"
        # An H200 measurement in another GPU's profile says that it was not measured there.
        measured = "measured on NVIDIA H200" in q.source
        borrowed = q.source.startswith(("not measured on", "derived:"))
        assert not measured or p.name.startswith("h200") or borrowed, f"{name}: {field}"
    # Warps are allocated one slot per sub-partition, and each sub-partition has a scheduler.
    assert p.warp_alloc_granularity.value == p.warp_schedulers_per_sm.value
    assert p.max_threads_per_sm == p.warp_size_threads.value * p.max_warps_per_sm.value


@pytest.mark.parametrize("name", [n for n in list_profiles() if not n.startswith("h200")])
def test_values_borrowed_from_the_h200_say_so(name):
    p, h200 = load_profile(name), load_profile("h200-sxm-datasheet")
    # A card calibrated on its own (h100-sxm5-measured) may measure the H200's very value (a
    # fetch ratio of 1.5): its source names that card, not the H200.
    own = f"measured on {p.display_name.split(' (')[0]}"
    for field in MEASURED:
        q = getattr(p, field)
        if q is not None and q.value == getattr(h200, field).value:
            source = getattr(p, field).source
            assert "not measured on" in source or source.startswith(own), f"{name}: {field}"


def test_the_h200_barrier_cost_fits_its_measurement():
    rows = json.loads(BARRIER.read_text())["by_warps_per_cta"]
    p = load_profile("h200-sxm-datasheet")
    for warps, row in rows.items():
        assert barrier_cycles(p, int(warps)) == pytest.approx(row["barrier_cycles"], abs=0.6)
