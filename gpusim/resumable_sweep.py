"""A resumable sweep: run many points, append each result to a JSONL file as soon as it is done.

Restarting the same sweep on the same file skips every point already there, so
an interrupted run (Ctrl-C, a killed job, a crash) loses at most the points
that were in flight. A point whose function raises is recorded with its error
and the sweep goes on. Progress goes to standard error.

Each line of the file is one JSON object::

    {"key": "<canonical JSON of the point>", "point": {...}, "status": "ok",
     "result": {...}, "wall_s": 0.12}
    {"key": "...", "point": {...}, "status": "error", "error": "GpusimError: ...", "wall_s": 0.01}

A line is written with a single ``write`` and flushed before the next point
starts (fsynced at most once a second, so thousands of cheap points do not
wait on the disk); a kill in the middle of a line leaves a partial last line,
which the next run cuts off before appending. With ``jobs > 1`` points run in a process
pool (forked where the platform can, so ``fn`` may be a closure; elsewhere it
must be picklable) and lines are appended in completion order. An ``executor`` runs the
points elsewhere instead (a Dask cluster: :mod:`gpusim.explore.dask_executor`): it maps
``fn`` and the points to be done onto records made by :func:`run_point`, in any order.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from gpusim.jsonable import jsonable

Point = Mapping[str, Any]
PointFn = Callable[[Point], Any]
#: Runs ``fn`` on the ``(key, point)`` pairs to do (an iterator, made as it is consumed) and
#: yields their :func:`run_point` records as they finish; closing the iterator stops what is
#: still running.
Executor = Callable[[PointFn, Iterator[tuple[str, Point]]], Iterator[dict[str, Any]]]

OK = "ok"
ERROR = "error"


def point_key(point: Point) -> str:
    """The identity of a point: its canonical JSON (sorted keys, no spaces)."""
    return json.dumps(jsonable(point), sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass
class SweepSummary:
    """What one call of :func:`run_sweep` did."""

    path: Path
    total: int  # distinct points asked for
    skipped: int  # already on disk from an earlier run
    ran: int  # finished and written by this run (ok or error)
    failed: int  # of ``ran``, how many raised
    interrupted: bool = False  # a KeyboardInterrupt stopped the run early
    failures: list[tuple[str, str]] = field(default_factory=list)  # (key, error), first few

    @property
    def done(self) -> int:
        """Points on disk for this sweep now."""
        return self.skipped + self.ran

    @property
    def remaining(self) -> int:
        """Points still to run (0 when the sweep is complete)."""
        return self.total - self.done


#: How many failures a summary keeps verbatim (the file has all of them).
KEPT_FAILURES = 20


def _repair_tail(path: Path) -> None:
    """Cut a partial last line (a run killed mid-write) so that appends start on a fresh line."""
    size = path.stat().st_size
    if size == 0:
        return
    with open(path, "rb+") as f:
        f.seek(-1, os.SEEK_END)
        if f.read(1) == b"\n":
            return
        # Walk back to the last newline; everything after it is a torn record.
        chunk = 1 << 16
        end = size
        while end > 0:
            start = max(0, end - chunk)
            f.seek(start)
            i = f.read(end - start).rfind(b"\n")
            if i >= 0:
                f.truncate(start + i + 1)
                return
            end = start
        f.truncate(0)


def iter_records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Every complete record of a sweep file, in file order (torn or garbled lines are skipped)."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                return  # torn last line
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict) and isinstance(rec.get("key"), str):
                yield rec


def load_results(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The latest record of each point in a sweep file, by point key."""
    return {rec["key"]: rec for rec in iter_records(path)}


def key_digest(key: str) -> bytes:
    """A point key's 16-byte digest: what sets of points hold (a key is hundreds of bytes)."""
    return hashlib.blake2b(key.encode(), digest_size=16).digest()


def _finished_digests(path: Path, retry_failed: bool) -> set[bytes]:
    latest: dict[bytes, bool] = {}
    for rec in iter_records(path):
        latest[key_digest(rec["key"])] = rec.get("status", ERROR) == OK
    return {k for k, ok in latest.items() if ok or not retry_failed}


def run_point(fn: PointFn, key: str, point: Point) -> dict[str, Any]:
    """Run one point; always returns a record (errors become ``status: error``)."""
    t0 = time.perf_counter()
    try:
        result = jsonable(fn(point))
        # Serialise here so that a result that is not JSON fails as this point's error.
        json.dumps(result, allow_nan=False)
        rec: dict[str, Any] = {"status": OK, "result": result}
    except Exception as e:  # recorded, never fatal: one bad point must not stop a sweep
        msg = " ".join(str(e).split())
        rec = {"status": ERROR, "error": f"{type(e).__name__}: {msg}" if msg else type(e).__name__}
        if os.environ.get("GPUSIM_DEBUG"):
            rec["traceback"] = traceback.format_exc()
    return {"key": key, "point": jsonable(point)} | rec | {"wall_s": time.perf_counter() - t0}


_POOL_FN: PointFn | None = None


def _worker_init(fn: PointFn) -> None:
    global _POOL_FN
    _POOL_FN = fn
    # Ctrl-C goes to the whole process group; the parent handles it and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pool_run(item: tuple[str, Point]) -> dict[str, Any]:
    assert _POOL_FN is not None
    return run_point(_POOL_FN, *item)


def _records(
    fn: PointFn, todo: Iterator[tuple[str, Point]], n_todo: int, jobs: int
) -> Iterator[dict[str, Any]]:
    """Records of the ``n_todo`` points of ``todo``, as they finish; closing it stops the
    workers."""
    if jobs <= 1 or n_todo <= 1:
        for key, point in todo:
            yield run_point(fn, key, point)
        return
    # fork (where there is one) lets workers inherit fn, so closures work too; spawn pickles it.
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else None)
    pool = ctx.Pool(min(jobs, n_todo), initializer=_worker_init, initargs=(fn,))
    try:
        yield from pool.imap_unordered(_pool_run, todo, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


class _RateColumn(ProgressColumn):
    """Points finished per second by this run (rich's estimate over its recent updates)."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- points/s" if speed is None else f"{speed:.3g} points/s")


def _progress(enabled: bool, console: Console | None) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed"),
        _RateColumn(),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        disable=not enabled,
        transient=False,
    )


def run_sweep(
    points: Iterable[Point] | Callable[[], Iterable[Point]],
    fn: PointFn,
    path: str | os.PathLike[str],
    *,
    jobs: int = 1,
    retry_failed: bool = False,
    progress: bool = True,
    description: str = "sweep",
    console: Console | None = None,
    fsync_interval_s: float = 1.0,
    executor: Executor | None = None,
) -> SweepSummary:
    """Run ``fn`` on each point not yet in the JSONL file ``path``, appending each result.

    Points are JSON-able mappings; duplicates run once. ``points`` may be a function that
    returns them afresh on each call: then they are made twice (counted, then run) and never
    held, so memory does not grow with the sweep (a set of 16-byte digests aside); an
    iterable is held for the second pass. ``fn`` returns anything
    JSON-able (dicts, lists, numbers, pydantic models, dataclasses). Points whose
    latest record is an error are skipped too unless ``retry_failed``. A
    ``KeyboardInterrupt`` stops the run; what finished is on disk and the
    summary says ``interrupted`` (the caller decides the exit status, e.g. 130).
    Every record is flushed to the OS when it is written (a killed process loses
    nothing finished); the file is fsynced at most every ``fsync_interval_s``
    and at the end (a power cut loses at most that much); 0 fsyncs every record.
    ``executor`` (default: this machine's processes, ``jobs`` of them) runs the points.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        _repair_tail(path)
    done = _finished_digests(path, retry_failed)
    if callable(points):
        make_points = points
    else:  # one pass only: keep the points for the second
        kept = list(points)
        make_points = lambda: kept  # noqa: E731
    seen: set[bytes] = set()
    for p in make_points():
        seen.add(key_digest(point_key(p)))
    n_todo = len(seen - done)
    summary = SweepSummary(path, len(seen), len(seen) - n_todo, 0, 0)
    del seen
    if not n_todo:
        return summary

    def todo() -> Iterator[tuple[str, Point]]:
        started: set[bytes] = set()
        for p in make_points():
            key = point_key(p)
            digest = key_digest(key)
            if digest not in done and digest not in started:
                started.add(digest)
                yield key, p

    records = executor(fn, todo()) if executor else _records(fn, todo(), n_todo, jobs)
    with _progress(progress, console) as bar, open(path, "a", encoding="utf-8") as out:
        task = bar.add_task(description, total=summary.total, completed=summary.skipped, failed=0)
        next_sync = time.monotonic()
        try:
            for rec in records:
                line = json.dumps(rec, allow_nan=False) + "\n"
                out.write(line)  # one write per record: a kill leaves at most one torn line
                out.flush()  # in the OS now: survives the process being killed
                if time.monotonic() >= next_sync:  # on disk: survives a power cut too
                    os.fsync(out.fileno())
                    next_sync = time.monotonic() + fsync_interval_s
                summary.ran += 1
                if rec["status"] == ERROR:
                    summary.failed += 1
                    if len(summary.failures) < KEPT_FAILURES:
                        summary.failures.append((rec["key"], rec["error"]))
                bar.update(task, advance=1, failed=summary.failed)
        except KeyboardInterrupt:
            summary.interrupted = True
            bar.console.print(
                f"interrupted: {summary.done} of {summary.total} points are in {path}; "
                "run the sweep again to do the rest",
                markup=False,
                highlight=False,
            )
        finally:
            close = getattr(records, "close", None)  # a generator: stops a pool or cluster now
            if close is not None:
                close()
            out.flush()
            os.fsync(out.fileno())
    return summary
