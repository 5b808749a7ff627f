"""The Dask executor: the same results as local processes; a bad cluster fails before any
point runs."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import pytest

from gpusim.errors import GpusimError
from gpusim.explore import explore, load_plan
from gpusim.explore.dask_executor import DaskExecutor
from gpusim.explore.run import JOURNAL
from gpusim.resumable_sweep import iter_records
from tests.explore.conftest import SMALL_SPEC, write_spec

pytest.importorskip("distributed")


#: 16 points: past the first window of one-point tasks, so later tasks carry batches.
BATCHED_SPEC = """
vary: {sm_count: [8, 16, 33, 66, 99, 132, 40, 50]}
workloads: [{batch: 1, heads: [1, 2], seq_len: 128, head_dim: 64}]
"""


@pytest.fixture(scope="module")
def batched(tmp_path_factory):
    """BATCHED_SPEC's plan and its sweep on local processes: the reference both Dask runs
    are compared with (swept once for the module)."""
    folder = tmp_path_factory.mktemp("batched")
    plan = load_plan(write_spec(folder, BATCHED_SPEC))
    return plan, explore(plan, folder / "local", jobs=2, figures=False)


def test_a_local_cluster_gives_the_local_executors_results(tmp_path, batched):
    plan, local = batched
    dask = explore(plan, tmp_path / "dask", executor="dask", workers=2, figures=False)
    assert dask.summary["executor"] == "Dask LocalCluster of 2 workers"
    assert dask.table.num_rows == 16 and dask.summary["ok"] == 16
    # Identical, point by point and column by column, but the wall time each search took.
    assert dask.table.drop_columns(["sim_wall_s"]).equals(local.table.drop_columns(["sim_wall_s"]))
    assert (tmp_path / "dask" / "points.csv").read_text().count("\n") == 17


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_fails_quickly_before_any_point(tmp_path):
    plan = load_plan(write_spec(tmp_path, SMALL_SPEC))
    address = f"tcp://127.0.0.1:{_unused_port()}"
    with pytest.raises(GpusimError) as e:
        explore(plan, tmp_path / "out", executor="dask", scheduler=address, connect_timeout_s=0.5)
    assert f"cannot reach the Dask scheduler at {address} within 0.5 s" in str(e.value)
    assert "\n" not in str(e.value)
    assert not (tmp_path / "out" / JOURNAL).exists()


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"scheduler": "not an address"}, "is not a scheduler address"),
        ({"scheduler": "tcp://h:1", "workers": 2}, "exclude each other"),
        ({"workers": 0}, "at least 1"),
        ({"connect_timeout_s": 0}, "must be positive"),
    ],
)
def test_bad_cluster_options_are_one_line(kwargs, expected):
    with pytest.raises(GpusimError, match=expected):
        DaskExecutor(**kwargs)


def test_cluster_options_need_the_dask_executor(tmp_path):
    plan = load_plan(write_spec(tmp_path, SMALL_SPEC))
    with pytest.raises(GpusimError, match="need --executor dask"):
        explore(plan, tmp_path / "out", workers=2)
    with pytest.raises(GpusimError, match="takes --workers"):
        explore(plan, tmp_path / "out", executor="dask", jobs=2)
    with pytest.raises(GpusimError, match="unknown executor"):
        explore(plan, tmp_path / "out", executor="ray")


#: 24 points (a tenth of a second or more each): long enough to lose a worker in the middle.
SLOWER_SPEC = """
vary: {sm_count: [8, 16, 33, 66, 99, 132]}
workloads: [{batch: 1, heads: [1, 2, 3, 4], seq_len: 128, head_dim: 64}]
"""


@pytest.fixture(scope="module")
def scheduler_address():
    """A real scheduler with two worker processes (behind nannies, which restart a lost one)."""
    import distributed

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


def test_an_existing_scheduler_gives_the_local_executors_results(
    tmp_path, scheduler_address, batched
):
    plan, local = batched
    remote = explore(
        plan, tmp_path / "remote", executor="dask", scheduler=scheduler_address, figures=False
    )
    assert remote.summary["executor"] == f"Dask scheduler {scheduler_address}"
    assert remote.summary["ok"] == 16
    assert remote.table.drop_columns(["sim_wall_s"]).equals(
        local.table.drop_columns(["sim_wall_s"])
    )


def test_a_worker_killed_mid_sweep_loses_and_redoes_no_point(tmp_path, scheduler_address):
    import distributed

    plan = load_plan(write_spec(tmp_path, SLOWER_SPEC))
    out = tmp_path / "out"
    journal = out / JOURNAL
    killed: dict[str, int] = {}

    def kill_a_worker_once_points_finish() -> None:
        with distributed.Client(scheduler_address, timeout=10) as client:
            pids = client.run(os.getpid)  # worker address -> its process
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if journal.exists() and journal.read_text().count("\n") >= 4:
                    break
                time.sleep(0.01)
            killed["done_before"] = journal.read_text().count("\n")
            killed["pid"] = next(iter(pids.values()))
            os.kill(killed["pid"], signal.SIGKILL)

    killer = threading.Thread(target=kill_a_worker_once_points_finish)
    killer.start()
    result = explore(plan, out, executor="dask", scheduler=scheduler_address, figures=False)
    killer.join(timeout=60)
    assert 4 <= killed["done_before"] < 24  # killed in the middle of the sweep
    with pytest.raises(ProcessLookupError):
        os.kill(killed["pid"], 0)  # that worker is gone; the scheduler re-ran its tasks
    keys = [r["key"] for r in iter_records(journal)]
    assert len(keys) == len(set(keys)) == 24  # nothing lost, nothing done twice
    assert result.summary["ok"] == 24 and result.summary["complete"]
