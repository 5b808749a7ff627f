"""Figure 1's data: traffic and memory against N, what does not fit, and agreement with simulate."""

from __future__ import annotations

import pytest

from gpusim.reporting.fig_standard_vs_flash import StandardVsFlash
from gpusim.reporting.measured import MeasuredRun
from gpusim.reporting.points import Point
from gpusim.schedule import Schedule
from gpusim.workload import Workload

from .helpers import read_csv, simulate_json, slope


def _series(data, alg, key, profile="h200-sxm-datasheet"):
    rows = [
        r
        for r in data.rows
        if r["panel"] == "seed-example" and r["algorithm"] == alg and r["profile"] == profile
    ]
    rows.sort(key=lambda r: r["seq_len_q"])
    return [r["seq_len_q"] for r in rows], [r[key] for r in rows]


def test_standard_grows_quadratically_flash_linearly(small):
    fig, results = small["StandardVsFlash"]
    data = fig.build(results)
    n, std = _series(data, "standard", "dram_bytes")
    _, fl = _series(data, "flash2", "dram_bytes")
    assert slope(n, std) > 1.7  # S and P dominate: N^2
    assert 0.9 < slope(n, fl) < 1.1  # Q, K, V, O once: N
    _, std_mem = _series(data, "standard", "hbm_footprint_bytes")
    _, fl_mem = _series(data, "flash2", "hbm_footprint_bytes")
    assert slope(n, std_mem) > 1.7
    assert slope(n, fl_mem) == 1.0
    # The table and the summary say the same.
    s = data.summary["profiles"]["h200-sxm-datasheet"]["by_seq_len"]["1024"]
    assert s["dram_ratio"] == std[-1] / fl[-1]
    assert len(data.table_rows) == 4


def test_csv_row_matches_gpusim_simulate(small, tmp_path, capsys):
    fig, results = small["StandardVsFlash"]
    fig.write(fig.build(results), tmp_path)
    rows = read_csv(tmp_path / f"{fig.name}.csv")
    row = next(r for r in rows if r["algorithm"] == "standard" and r["seq_len_q"] == "512")
    point = Point("standard", "h200-sxm-datasheet", 1, 2, 512, 64)
    sim = simulate_json(point, capsys)
    assert int(row["dram_bytes"]) == sim["dram_read_bytes"] + sim["dram_write_bytes"]
    assert int(row["global_bytes"]) == sim["global_read_bytes"] + sim["global_write_bytes"]
    assert float(row["runtime_s"]) == sim["runtime_s"]
    assert int(row["block_m"]) == sim["schedule"]["block_m"]
    assert row["bound"] == sim["bound"]


def test_a_standard_run_that_does_not_fit_is_not_simulated():
    # 2 x 40960 x 1024^2 x 2 bytes of S and P = 172 GB > the H200's 141 GB.
    fig = StandardVsFlash(
        profiles=("h200-sxm-datasheet",), seq_lens=(1024,), batch=320, heads=128, head_dim=64
    )
    points = fig.points()
    assert [p.algorithm for p in points] == ["flash2"]
    from gpusim.reporting.points import run_points

    data = fig.build(run_points(points, jobs=1))
    std = next(r for r in data.rows if r["algorithm"] == "standard")
    assert std["fits_hbm"] is False and std["source"] == "does not fit"
    assert "runtime_s" not in std
    assert data.summary["profiles"]["h200-sxm-datasheet"]["standard_does_not_fit_from"] == 1024
    assert "no longer fit" in fig.describe(data)


def _run(alg, n, measured_s, sched):
    w = Workload(batch=16384 // n, heads=16, seq_len_q=n, seq_len_k=n, head_dim=128, dtype="bf16")
    s = Schedule(block_m=sched[0], block_n=sched[1], warps=4, stages=2)
    return MeasuredRun(
        f"{alg}_{n}_{sched}",
        alg,
        "tc",
        w,
        s,
        "NVIDIA H200",
        "h200-sxm-datasheet",
        measured_s,
        measured_s * 1.1,
        "tensor",
        10**9,
        10**9,
    )


def test_measured_points_use_one_schedule_per_length_and_are_labelled(tmp_path):
    runs = [
        _run("flash2", 1024, 1e-3, (128, 64)),
        _run("flash2", 2048, 2e-3, (128, 64)),
        _run("flash2", 2048, 3e-3, (64, 64)),  # a schedule sweep at one length: left out
        _run("standard", 1024, 5e-3, (128, 128)),
    ]
    fig = StandardVsFlash(profiles=("h200-sxm-datasheet",), seq_lens=(), measured=runs)
    chosen = fig.measured_runs()
    assert sorted((r.algorithm, r.workload.seq_len_q, r.schedule.block_m) for r in chosen) == [
        ("flash2", 1024, 128),
        ("flash2", 2048, 128),
        ("standard", 1024, 128),
    ]
    data = fig.build({})
    shape = [r for r in data.rows if r["panel"] == "measured-shape"]
    assert len(shape) == 2 * len(chosen)
    sim = next(r for r in shape if r["source"] == "simulated" and r["algorithm"] == "standard")
    meas = next(r for r in shape if r["source"] != "simulated" and r["algorithm"] == "standard")
    assert (sim["runtime_s"], meas["runtime_s"]) == (pytest.approx(5.5e-3), 5e-3)
    assert meas["source"] == "measured on NVIDIA H200"
    m = data.summary["measured"]
    assert m["flash2"]["n"] == 2 and m["flash2"]["mape"] == pytest.approx(0.1)
    assert "off by 10% for flash2" in fig.describe(data)
    assert (tmp_path / f"{fig.name}.png") in fig.write(data, tmp_path)  # the second row draws
