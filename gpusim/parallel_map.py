"""A process-pool map for the tuner: candidates of one search, or workloads of a sweep.

Workers are forked and find the function and its inputs in this module's state,
inherited from the parent: only indices go to them and only results come back.
That avoids importing the engine again in each worker and pickling inputs that
do not pickle (a profile's generic pydantic fields). Without fork, runs serially.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: (function, items) of the map in progress; set before forking, read in the workers.
_WORK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def default_jobs() -> int:
    """One worker per core this process may use."""
    return max(1, len(os.sched_getaffinity(0)))


def _call(i: int) -> Any:
    fn, items = _WORK  # type: ignore[misc]
    return fn(items[i])


def pmap(
    fn: Callable[[T], R],
    items: Sequence[T],
    jobs: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
) -> list[R]:
    """``[fn(x) for x in items]``, in order, on ``jobs`` processes (default: the cores).

    Runs in this process when there is one job or one item, without fork, or when
    already inside a worker (pool workers cannot have children). ``on_done(done,
    total)`` is called as results arrive (a progress bar).
    """
    report = on_done or (lambda _done, _total: None)
    global _WORK
    jobs = default_jobs() if jobs is None else jobs
    serial = (
        jobs <= 1
        or len(items) <= 1
        or mp.current_process().daemon
        or "fork" not in mp.get_all_start_methods()
    )
    out: list[R] = []
    report(0, len(items))
    if serial:
        for x in items:
            out.append(fn(x))
            report(len(out), len(items))
        return out
    _WORK = (fn, items)
    try:
        with mp.get_context("fork").Pool(min(jobs, len(items))) as pool:
            for r in pool.imap(_call, range(len(items)), chunksize=1):
                out.append(r)
                report(len(out), len(items))
            return out
    finally:
        _WORK = None
