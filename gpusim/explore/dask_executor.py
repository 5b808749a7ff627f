"""Points on a Dask cluster (dask.distributed): an existing scheduler, or a LocalCluster.

:class:`DaskExecutor` is a context manager. Entering it connects (with a short timeout),
waits for a worker and checks that the workers run this gpusim version, so that a wrong
address, an empty cluster or a stale install is a one-line error before any point runs.
Called as a :data:`gpusim.resumable_sweep.Executor`, it keeps a bounded window of tasks
in flight (memory does not grow with the sweep), each a batch of points sized from their
measured wall times, and yields each record as it finishes. A worker lost mid-task is
Dask's to handle: the scheduler runs the task again elsewhere; a task that kills workers
repeatedly has its points recorded as failed with Dask's reason.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import re
from collections.abc import Iterator
from typing import Any

from gpusim.errors import GpusimError
from gpusim.resumable_sweep import ERROR, Point, PointFn, run_point

#: Seconds to reach the scheduler and to see a worker, unless told otherwise.
CONNECT_TIMEOUT_S = 5.0
#: Tasks in flight per worker thread: enough to keep each busy while results come back.
IN_FLIGHT_PER_THREAD = 3
#: A task's wall time to aim for: Dask's own cost per task (about 1 ms of the scheduler,
#: more on the client and worker) is then a few per cent at most.
TASK_TARGET_S = 0.25
MAX_POINTS_PER_TASK = 64
_ADDRESS = re.compile(r"^(tcp|tls|inproc|ucx|ws|wss)://\S+$|^[\w.\-\[\]:]+:\d+$")


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise GpusimError(
            "the dask executor needs dask.distributed: pip install 'dask[distributed]'"
        ) from None
    return distributed


def _worker_version() -> str:
    import gpusim

    return gpusim.__version__


def _records(fn: PointFn, batch: list[tuple[str, Point]]) -> list[dict[str, Any]]:
    return [run_point(fn, key, point) for key, point in batch]


class DaskExecutor:
    """Run sweep points on ``scheduler`` (an address) or on a LocalCluster of ``workers``."""

    def __init__(
        self,
        scheduler: str | None = None,
        workers: int | None = None,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> None:
        if scheduler is not None and workers is not None:
            raise GpusimError(
                "--scheduler and --workers exclude each other: --workers starts a cluster"
            )
        if scheduler is not None and not _ADDRESS.match(scheduler):
            raise GpusimError(
                f"--scheduler {scheduler!r} is not a scheduler address such as tcp://HOST:8786"
            )
        if workers is not None and workers < 1:
            raise GpusimError(f"--workers must be at least 1, got {workers}")
        if not connect_timeout_s > 0:
            raise GpusimError(f"the connect timeout must be positive, got {connect_timeout_s}")
        self.scheduler, self.workers, self.timeout_s = scheduler, workers, connect_timeout_s
        self.client: Any = None
        self.cluster: Any = None

    @property
    def where(self) -> str:
        """The cluster in words, for logs and the summary."""
        if self.scheduler:
            return f"Dask scheduler {self.scheduler}"
        return f"Dask LocalCluster of {self.workers or 'default'} workers"

    def __enter__(self) -> DaskExecutor:
        distributed = _import_distributed()
        quiet = logging.ERROR  # the cluster's own INFO lines would bury the progress bar
        try:
            if self.scheduler is None:
                self.cluster = distributed.LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,  # a point is pure Python: one per process
                    processes=True,
                    dashboard_address=None,
                    silence_logs=quiet,
                )
                self.client = distributed.Client(self.cluster, timeout=self.timeout_s)
            else:
                self.client = distributed.Client(self.scheduler, timeout=self.timeout_s)
        except (OSError, TimeoutError) as e:
            self.__exit__(None, None, None)
            what = self.scheduler or "a LocalCluster"
            raise GpusimError(
                f"cannot reach the Dask scheduler at {what} within {self.timeout_s:g} s: "
                f"{' '.join(str(e).split())}"
            ) from None
        try:
            self._preflight()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _preflight(self) -> None:
        import gpusim

        try:
            self.client.wait_for_workers(1, timeout=self.timeout_s)
        except (OSError, TimeoutError):
            raise GpusimError(
                f"the {self.where} has no worker (waited {self.timeout_s:g} s)"
            ) from None
        try:
            theirs = self.client.submit(_worker_version, pure=False).result(
                timeout=max(self.timeout_s, 30.0)
            )
        except Exception as e:  # ModuleNotFoundError on a worker without gpusim, a timeout
            raise GpusimError(
                f"the {self.where}'s workers cannot run gpusim: {type(e).__name__}: {e}"
            ) from None
        if theirs != gpusim.__version__:
            raise GpusimError(
                f"the {self.where}'s workers run gpusim {theirs}, this is {gpusim.__version__}"
            )

    def __exit__(self, *exc: object) -> None:
        for part in (self.client, self.cluster):
            if part is not None:
                with contextlib.suppress(Exception):  # already gone: nothing left to stop
                    part.close()
        self.client = self.cluster = None

    def threads(self) -> int:
        """Worker threads on the cluster now (each runs one point at a time)."""
        return max(1, sum(self.client.nthreads().values()))

    def __call__(self, fn: PointFn, todo: Iterator[tuple[str, Point]]) -> Iterator[dict[str, Any]]:
        """Records of ``todo``'s points as they finish; closing it cancels the rest.

        Points go in batches (one Dask task each) sized so that a task takes about
        :data:`TASK_TARGET_S`, from the points' own wall times: a task costs the cluster
        milliseconds of its own, which would otherwise dominate cheap points, and the
        first tasks (one point each) measure them.
        """
        distributed = _import_distributed()
        client = self.client
        [fn_on_cluster] = client.scatter([fn], broadcast=True, hash=False)
        pending = iter(todo)
        window = IN_FLIGHT_PER_THREAD * self.threads()
        running: dict[Any, list[tuple[str, Point]]] = {}
        walls = {"n": 0, "s": 0.0}

        def batch_size() -> int:
            if walls["n"] < window:  # not measured yet: one point per task
                return 1
            mean_s = max(walls["s"] / walls["n"], 1e-6)
            return max(1, min(MAX_POINTS_PER_TASK, math.ceil(TASK_TARGET_S / mean_s)))

        def submit(n_tasks: int) -> list[Any]:
            new = []
            for _ in range(n_tasks):
                batch = list(itertools.islice(pending, batch_size()))
                if not batch:
                    break
                fut = client.submit(_records, fn_on_cluster, batch, pure=False)
                running[fut] = batch
                new.append(fut)
            return new

        done_stream = distributed.as_completed(submit(window))
        try:
            for fut in done_stream:
                batch = running.pop(fut)
                try:
                    recs = fut.result()
                except Exception as e:  # KilledWorker: the points took down their workers
                    msg = " ".join(str(e).split())
                    recs = [{"key": key, "point": point, "status": ERROR,
                             "error": f"{type(e).__name__}: {msg}", "wall_s": 0.0}
                            for key, point in batch]  # fmt: skip
                fut.release()
                for rec in recs:
                    walls["n"] += 1
                    walls["s"] += rec["wall_s"]
                    yield rec
                for new in submit(1):
                    done_stream.add(new)
        finally:
            for fut in running:
                fut.cancel()
