"""``gpusim explore``: the JSON contract, and bad input as one line and exit 2 before any
point runs."""

from __future__ import annotations

import json
import socket

import pytest

from gpusim.explore.run import JOURNAL
from tests.explore.conftest import SMALL_SPEC, write_spec

CONTRACT_KEYS = {"params", "workload", "algorithm", "schedule", "runtime_s", "bound",
                 "dram_read_bytes"}  # fmt: skip


def test_json_is_one_object_whose_points_have_the_contracts_keys(gpusim, tmp_path):
    spec = write_spec(tmp_path, SMALL_SPEC)
    r = gpusim("explore", spec, "--out", tmp_path / "out", "--jobs", "2", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert len(data["points"]) == 4
    for p in data["points"]:
        assert set(p) >= CONTRACT_KEYS
        assert p["schedule"]["smem_bytes_per_cta"] > 0 and p["runtime_s"] > 0
    assert [p["params"]["sm_count"] for p in data["points"]] == [66, 66, 132, 132]
    assert data["summary"]["ok"] == 4 and not data["interrupted"]
    assert {"points.parquet", "points.csv", "summary.json"} <= {
        f.rsplit("/", 1)[-1] for f in data["files"]
    }
    # Without --json: tables for a person, and the same files.
    again = gpusim("explore", spec, "--out", tmp_path / "out", "--no-figures")
    assert again.code == 0 and "knees" in again.out and "slowest" in again.out


def test_fields_lists_what_a_spec_may_vary(gpusim):
    r = gpusim("explore", "--fields", "--profile", "a100-sxm4-80gb", "--json")
    assert r.code == 0
    rows = {f["field"]: f for f in r.json()["fields"]}
    assert rows["sm_count"]["value"] == 108 and "l2_bytes" in rows


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BAD_SPECS = {
    "unknown field": ("vary: {l2_size: [1]}\nworkloads: [{}]", "did you mean 'l2_bytes'"),
    "refused value": ("vary: {sm_count: [0, 66]}\nworkloads: [{}]", "sm_count"),
    "empty grid": ("vary: {sm_count: []}\nworkloads: [{}]", "an empty list"),
    "malformed yaml": ("vary: [sm_count: {\n", "not valid YAML at line"),
}


@pytest.mark.parametrize("case", BAD_SPECS)
def test_bad_specs_are_one_line_and_exit_2_before_any_point(gpusim, tmp_path, case):
    text, expected = BAD_SPECS[case]
    spec = write_spec(tmp_path, text)
    r = gpusim("explore", spec, "--out", tmp_path / "out", "--json")
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("gpusim: error: ") and r.err.count("\n") == 1
    assert expected in r.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--executor", "dask", "--scheduler", "SCHED", "--connect-timeout", "0.5"],
         "cannot reach the Dask scheduler"),
        (["--executor", "spark"], "unknown executor"),
        (["--workers", "2"], "need --executor dask"),
        (["--jobs", "0"], "--jobs must be at least 1"),
    ],
)  # fmt: skip
def test_bad_executors_are_one_line_and_exit_2_before_any_point(gpusim, tmp_path, args, expected):
    spec = write_spec(tmp_path, SMALL_SPEC)
    args = [a.replace("SCHED", f"tcp://127.0.0.1:{_unused_port()}") for a in args]
    r = gpusim("explore", spec, "--out", tmp_path / "out", *args)
    assert r.code == 2 and expected in r.err and r.err.count("\n") == 1
    assert not (tmp_path / "out" / JOURNAL).exists()


def test_a_spec_is_needed(gpusim):
    r = gpusim("explore")
    assert r.code == 2 and "needs a SPEC.yaml" in r.err


def test_the_json_points_are_the_tables_rows(gpusim, tmp_path):
    import pyarrow.parquet as pq

    spec = write_spec(tmp_path, SMALL_SPEC)
    r = gpusim("explore", spec, "--out", tmp_path / "o", "--jobs", "1", "--no-figures", "--json")
    table = pq.read_table(tmp_path / "o" / "points.parquet")
    assert [p["runtime_s"] for p in r.json()["points"]] == table.column("runtime_s").to_pylist()
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["points"] == 4
