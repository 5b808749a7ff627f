"""``gpusim simulate``: the default comparison, one algorithm, traces and bad input."""

from __future__ import annotations

import json

CONTRACT = (
    "algorithm",
    "workload",
    "schedule",
    "flops",
    "global_read_bytes",
    "global_write_bytes",
    "smem_bytes_per_cta",
    "profile",
    "runtime_s",
    "dram_read_bytes",
    "dram_write_bytes",
    "l2_hit_rate",
    "ctas_per_sm",
    "waves",
    "bound",
    "events",
    "sim_wall_s",
)


def test_default_compares_standard_and_flash2(gpusim):
    r = gpusim("simulate", "--json", "--batch", "2", "--heads", "4", "--seq-len", "512")
    assert r.code == 0, r.err
    d = r.json()
    assert [x["algorithm"] for x in d["results"]] == ["standard", "flash2"]
    assert all(k in d for k in CONTRACT)
    assert d["algorithm"] == "flash2"
    assert d["runtime_s"] == d["results"][1]["runtime_s"]
    std, fa2 = d["results"]
    assert std["dram_read_bytes"] > fa2["dram_read_bytes"]
    assert std["runtime_s"] > fa2["runtime_s"]


def test_one_algorithm_has_its_keys_at_the_top(gpusim):
    r = gpusim("simulate", "--json", "-a", "flash1", "--heads", "2", "--seq-len", "256")
    assert r.code == 0, r.err
    d = r.json()
    assert d["algorithm"] == "flash1" and "results" not in d
    assert all(k in d for k in CONTRACT)
    assert d["defaults_used"]  # block sizes chosen by the default rule, and said so


def test_table_names_both_algorithms(gpusim):
    r = gpusim("simulate", "--heads", "2", "--seq-len", "256", "--verbose")
    assert r.code == 0, r.err
    assert "standard" in r.out and "flash2" in r.out and "bound" in r.out
    assert "events/s" in r.err


def test_trace_file_holds_both_algorithms(gpusim, tmp_path):
    path = tmp_path / "t.json"
    r = gpusim("simulate", "--json", "--heads", "2", "--seq-len", "256", "--trace", path)
    assert r.code == 0, r.err
    runs = json.loads(path.read_text())["otherData"]["runs"]
    assert [run["algorithm"] for run in runs] == ["standard", "flash2"]
    assert not (tmp_path / "t.standard.json").exists()


def test_bad_input_is_one_line_and_exit_2(gpusim):
    for argv in (
        ("simulate", "-a", "nope"),
        ("simulate", "--profile", "nope"),
        ("simulate", "-a", "flash2", "--block-m", "2048", "--block-n", "2048"),
        ("simulate", "--detail", "exact"),
        ("simulate", "--seq-len", "0"),
    ):
        r = gpusim(*argv)
        assert r.code == 2, (argv, r.err)
        assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err
