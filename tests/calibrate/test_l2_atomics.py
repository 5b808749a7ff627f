"""l2_atomics: its modes, the record table and the profile entry (its SASS:
tests/calibrate/test_kernel_sources.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusim.calibrate.l2_atomics import ADD_PER_CHUNK, MODES, kernel_name, profile_entry, table


def test_modes_and_the_expected_sum():
    assert kernel_name(1) == "l2_atomics<1>" and set(MODES) == {0, 1, 2}
    # 256 floats a chunk, each added once a pass by a lane whose value is 1 + (lane % 8) / 8
    want = sum(1 + (lane % 8) / 8 for lane in range(32)) * 8
    assert abs(ADD_PER_CHUNK - want) < 1e-9


def test_table():
    doc = {"kind": "gpusim.l2_atomics", "rows": [
        {"what": "atomic add, 32 consecutive floats", "bytes_added": 2e9, "times_s": [1e-3, 2e-3],
         "bytes_per_s": 1.5e12, "expected_sum": 10.0, "sum_ok": True},
        {"what": "4-byte stores", "bytes_added": 2e9, "times_s": [1e-3], "bytes_per_s": 2e12,
         "expected_sum": None, "sum_ok": True},
    ]}  # fmt: skip
    text = table(doc)
    assert "| atomic add, 32 consecutive floats | 1.500 | 1.000-2.000 | yes |" in text
    assert "| 4-byte stores | 2.000 | 2.000-2.000 | - |" in text
    with pytest.raises(ValueError):
        table({"kind": "other"})


def _record(sum_ok: bool = True) -> dict:
    rows = [
        {"mode": m, "what": MODES[m], "bytes_added": 4e9, "times_s": [2e-3, 2.5e-3, 4e-3],
         "bytes_per_s": 4e9 / 2.5e-3 * (1 + m), "sum_ok": sum_ok or m == 0,
         "outputs_finite": True, "expected_sum": 1.0}
        for m in MODES
    ]  # fmt: skip
    return {"kind": "gpusim.l2_atomics", "buffer_bytes": 16 << 20, "threads": 256,
            "ctas_per_sm": 8, "rows": rows}  # fmt: skip


def test_the_profile_takes_the_accumulator_layouts_rate():
    e = profile_entry(_record(), "rec.json")
    assert e["value"] == 4e9 / 2.5e-3 * 2  # mode 1, the median launch
    assert "rec.json" in e["source"] and "mma C-fragment layout" in e["note"]
    assert "min 1e+12, max 2e+12" in e["note"]


def test_a_run_whose_sum_failed_gives_no_value():
    with pytest.raises(ValueError, match="no checked run"):
        profile_entry(_record(sum_ok=False), "rec.json")
    with pytest.raises(ValueError, match="not an l2_atomics record"):
        profile_entry({"kind": "other"}, "rec.json")


def test_record_and_profile_write_the_field_after_the_l2_bandwidth(tmp_path):
    import json

    import yaml

    from gpusim.calibrate.l2_atomics import main
    from gpusim.profiles.schema import HardwareProfile

    prof = tmp_path / "p.yaml"
    shipped = Path(__file__).parents[2] / "hardware_profiles" / "h200-sxm.yaml"
    prof.write_text(shipped.read_text())
    rec = tmp_path / "rec.json"
    rec.write_text(json.dumps(_record()))
    assert main(["--record", str(rec), "--profile", str(prof)]) == 0
    doc = yaml.safe_load(prof.read_text())
    keys = list(doc)
    assert keys[keys.index("l2_bandwidth_bytes_per_s") + 1] == "l2_atomic_add_bytes_per_s"
    p = HardwareProfile.model_validate(doc)
    assert p.l2_atomic_add_bytes_per_s.value == 4e9 / 2.5e-3 * 2
    assert main(["--record", str(rec), "--profile", str(prof)]) == 0  # twice: the same file
    assert yaml.safe_load(prof.read_text()) == doc
    rec.write_text(json.dumps(_record(sum_ok=False)))
    assert main(["--record", str(rec), "--profile", str(prof)]) == 2
