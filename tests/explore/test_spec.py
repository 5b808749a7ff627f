"""The spec file is read strictly: malformed YAML, unknown keys and wrong shapes are one line."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.explore.spec import load_spec, parse_spec


def test_a_spec_reads_with_its_defaults():
    spec = parse_spec("workloads: {seq_len: 128}\nvary: {sm_count: [66]}\n")
    assert spec.base_profile == "h200-sxm" and spec.algorithms == ["flash2"]
    assert spec.workload_entries == [{"seq_len": 128}]
    assert (spec.footprints, spec.knee_tolerance) == ("compiled", 0.05)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("vary: {sm_count: [66\nworkloads: []", "spec.yaml: not valid YAML at line"),
        ("- just a list", "spec.yaml: expected a mapping"),
        ("workloads: []\nvaryy: {}", "varyy: unknown key"),
        ("vary: {sm_count: 66}\nworkloads: []", "vary.sm_count"),
        ("algorithms: [flash2]", "workloads: missing"),
        ("workloads: []\nknee_tolerance: 2", "knee_tolerance"),
        ("workloads: []\nfootprints: ptx", "footprints"),
    ],
)
def test_bad_specs_are_one_line_errors(text, expected):
    with pytest.raises(GpusimError) as e:
        parse_spec(text, "spec.yaml")
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_a_missing_or_undecodable_file_is_one_line(tmp_path):
    with pytest.raises(GpusimError, match="not found"):
        load_spec(tmp_path / "nope.yaml")
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe")
    with pytest.raises(GpusimError, match="not UTF-8"):
        load_spec(tmp_path / "bin.yaml")
    with pytest.raises(GpusimError, match="is a folder"):
        load_spec(tmp_path)


def test_json_specs_are_read_as_json(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"workloads": [{"seq_len": 64}], "vary": {"sm_count": [1, 2]}}')
    assert load_spec(path).vary == {"sm_count": [1, 2]}
    path.write_text('{"workloads": ')
    with pytest.raises(GpusimError, match="not valid JSON at line 1"):
        load_spec(path)
