"""Loading profiles by name and by path, caching, and one-line errors naming file and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpusim.errors import GpusimError
from gpusim.profiles import DEFAULT_PROFILE, list_profiles, load_profile, profile_path
from gpusim.profiles.schema import HardwareProfile

REQUIRED = {"a100-sxm4-80gb", "h100-sxm5", "h200-sxm-datasheet"}


def _h200_data() -> dict:
    return yaml.safe_load(profile_path("h200-sxm-datasheet").read_text())


def _write(tmp_path: Path, data: dict, name: str = "custom.yaml") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data))
    return path


def test_required_profiles_ship_and_default_exists():
    names = list_profiles()
    assert set(names) >= REQUIRED
    assert len(names) >= 5
    assert DEFAULT_PROFILE in names
    assert names == sorted(names)


def test_load_by_name_is_cached_and_typed():
    p = load_profile("h200-sxm-datasheet")
    assert isinstance(p, HardwareProfile)
    assert load_profile("h200-sxm-datasheet") is p


def test_load_by_path_yaml_and_json(tmp_path):
    data = _h200_data()
    from_yaml = load_profile(_write(tmp_path, data))
    from_json = load_profile(str(_write(tmp_path, data, "custom.json")))
    assert from_yaml == from_json == load_profile("h200-sxm-datasheet")


def test_edited_file_is_read_again(tmp_path):
    data = _h200_data()
    path = _write(tmp_path, data)
    assert load_profile(path).sm_count.value == 132
    data["sm_count"]["value"] = 100
    path.write_text(yaml.safe_dump(data))
    import os

    os.utime(path, ns=(1, 2))  # a different mtime even on coarse-clock file systems
    assert load_profile(path).sm_count.value == 100


def test_unknown_name_lists_known_ones():
    with pytest.raises(GpusimError, match=r"unknown profile 'h300'; known profiles: .*h200-sxm"):
        load_profile("h300")


def test_shipped_file_name_works_from_anywhere():
    assert load_profile("h100-sxm5.yaml") is load_profile("h100-sxm5")


def test_missing_file():
    with pytest.raises(GpusimError, match="not found"):
        load_profile("does/not/exist.yaml")


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d["sm_count"].update(value=0), r"^bad\.yaml: sm_count\.value: must be > 0$"),
        (lambda d: d["l2_bytes"].update(value=-5), r"^bad\.yaml: l2_bytes\.value: must be > 0$"),
        (lambda d: d.update(sm_kount=d.pop("sm_count")), r"^bad\.yaml: sm_kount: unknown key"),
        (lambda d: d.pop("dram_latency_s"), r"^bad\.yaml: dram_latency_s: missing"),
        (lambda d: d["sm_count"].pop("source"), r"^bad\.yaml: sm_count\.source: missing"),
        (lambda d: d["sm_clock_hz"].update(value="fast"), r"^bad\.yaml: sm_clock_hz\.value: "),
        (lambda d: d.update(schema_version=2), r"^bad\.yaml: schema_version: must be 1"),
        (
            lambda d: d["smem_per_block_bytes"].update(value=10**6),
            r"^bad\.yaml: smem_per_block_bytes\.value: .*exceeds smem_per_sm_bytes",
        ),
        (
            lambda d: d["smem_carveout_steps_kib"].update(value=[64, 8]),
            r"^bad\.yaml: smem_carveout_steps_kib\.value: must be strictly increasing$",
        ),
        (
            lambda d: d["mma_sync_flops_per_clk_per_sm"]["fp16"].update(value=0),
            r"^bad\.yaml: mma_sync_flops_per_clk_per_sm\.fp16\.value: must be > 0$",
        ),
    ],
)
def test_invalid_profile_is_one_line_naming_file_and_field(tmp_path, edit, expected):
    data = _h200_data()
    edit(data)
    with pytest.raises(GpusimError) as info:
        load_profile(_write(tmp_path, data, "bad.yaml"))
    message = str(info.value)
    assert "\n" not in message
    assert __import__("re").search(expected, message), message


def test_malformed_yaml_and_non_mapping(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("schema_version: 1\nsm_count: [\n")
    with pytest.raises(GpusimError, match=r"^broken\.yaml: not valid YAML at line \d+$"):
        load_profile(bad)
    bad.write_text("- just\n- a list\n")
    with pytest.raises(GpusimError, match="expected a mapping"):
        load_profile(bad)
