"""A real sweep end to end: files, order, failures recorded, resume, a refused folder."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

import gpusim
from gpusim.errors import GpusimError
from gpusim.explore import explore, load_plan
from gpusim.explore.run import JOURNAL, MANIFEST
from gpusim.resumable_sweep import iter_records
from gpusim.workload import Workload
from tests.explore.conftest import SMALL_SPEC, write_spec


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    folder = tmp_path_factory.mktemp("swept")
    plan = load_plan(write_spec(folder, SMALL_SPEC))
    return plan, explore(plan, folder / "out", jobs=2)


def test_every_point_is_tuned_and_written(swept):
    plan, result = swept
    out = result.out
    names = {p.name for p in result.files}
    assert {"points.parquet", "points.csv", "summary.json", "runtime_vs_sm_count.png"} <= names
    table = pq.read_table(out / "points.parquet")
    assert table.num_rows == 4 and table.column("status").to_pylist() == ["ok"] * 4
    assert table.column("params.sm_count").to_pylist() == [66, 66, 132, 132]  # plan order
    assert (out / "points.csv").read_text().count("\n") == 5
    assert json.loads((out / "summary.json").read_text())["ok"] == 4
    assert json.loads((out / MANIFEST).read_text())["base_fingerprint"] == plan.base_fingerprint


def test_a_point_is_the_tuners_best_on_the_varied_profile(swept):
    _plan, result = swept
    row = result.table.slice(2, 1).to_pylist()[0]  # sm_count 132, heads 1: the base GPU
    w = Workload(batch=1, heads=1, seq_len_q=128, seq_len_k=128, head_dim=64)
    best = gpusim.tune(w, "h200-sxm", jobs=1).best
    assert row["runtime_s"] == best.runtime_s and row["bound"] == best.bound
    assert row["schedule.block_m"] == best.schedule.block_m
    assert row["schedule.smem_bytes_per_cta"] == best.smem_bytes_per_cta
    assert row["dram_read_bytes"] == best.dram_read_bytes


def test_the_summary_lists_slowest_points_and_knees(swept):
    _, result = swept
    s = result.summary
    walls = sorted(result.table.column("sim_wall_s").to_pylist(), reverse=True)
    assert [r["sim_wall_s"] for r in s["slowest"]] == walls
    assert len(s["knees"]) == 2 and {k["param"] for k in s["knees"]} == {"sm_count"}
    assert len(s["best"]) == 2 and s["complete"]


def test_running_again_resumes_and_does_nothing(swept):
    plan, result = swept
    again = explore(plan, result.out, jobs=1, figures=False)
    assert (again.sweep.skipped, again.sweep.ran) == (4, 0)
    assert again.table.drop_columns(["sim_wall_s"]).equals(
        result.table.drop_columns(["sim_wall_s"])
    )


def test_a_folder_of_another_base_profile_is_refused(swept, tmp_path):
    _, result = swept
    other = load_plan(write_spec(tmp_path, SMALL_SPEC.replace("h200-sxm", "a100-sxm4-80gb")))
    with pytest.raises(GpusimError, match="another base profile"):
        explore(other, result.out)


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path):
    spec = write_spec(
        tmp_path,
        """
        vary: {max_threads_per_block: [1024, 2048], max_warps_per_sm: [32, 64]}
        workloads: [{batch: 1, heads: 1, seq_len: 128, head_dim: 64}]
        """,
    )
    result = explore(load_plan(spec), tmp_path / "out", jobs=1, figures=False)
    status = result.table.column("status").to_pylist()
    assert status == ["ok", "ok", "error", "ok"]
    error = result.table.column("error").to_pylist()[2]
    assert "max_threads_per_block" in error and "\n" not in error
    assert result.summary["failures"] == [{"error": error, "points": 1}]


_KILLABLE = """
import sys
from gpusim.explore import explore, load_plan
explore(load_plan(sys.argv[1]), sys.argv[2], jobs=1, figures=False)
"""


def test_a_sweep_killed_halfway_resumes_without_losing_or_redoing_points(tmp_path):
    spec = write_spec(
        tmp_path,
        """
        vary: {sm_count: [8, 16, 33, 66, 99, 132]}
        workloads: [{batch: 1, heads: [1, 2, 3], seq_len: 128, head_dim: 64}]
        """,
    )
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", _KILLABLE, str(spec), str(out)])
    journal = out / JOURNAL
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_text().count("\n") >= 3:
                break
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    before = {r["key"] for r in iter_records(journal)}
    assert 3 <= len(before) < 18
    result = explore(load_plan(spec), out, jobs=1, figures=False)
    assert result.sweep.skipped == len(before) and result.sweep.ran == 18 - len(before)
    keys = [r["key"] for r in iter_records(journal)]
    assert len(keys) == len(set(keys)) == 18  # nothing lost, nothing done twice
    assert result.table.num_rows == 18 and result.summary["complete"]


def test_a_spec_that_varies_nothing_compares_workloads_and_algorithms(tmp_path):
    spec = write_spec(
        tmp_path,
        """
        workloads: [{batch: 1, heads: 1, seq_len: [64, 128], head_dim: 64}]
        algorithms: [flash2, flash1]
        """,
    )
    result = explore(load_plan(spec), tmp_path / "out", jobs=2)
    assert result.summary["ok"] == 4 and result.summary["knees"] == []
    assert [b["params"] for b in result.summary["best"]] == [{}] * 4
    assert not any(p.suffix == ".png" for p in result.files)  # no parameter to draw against


def test_a_terminal_shows_points_done_failures_rate_and_time_left(small_spec, tmp_path):
    import io

    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120)
    explore(load_plan(small_spec), tmp_path / "out", jobs=1, figures=False, progress=True,
            console=console)  # fmt: skip
    shown = buf.getvalue()
    assert "4/4" in shown and "0 failed" in shown and "points/s" in shown
    assert re.search(r"\d+:\d\d:\d\d", shown)  # the estimated time left
