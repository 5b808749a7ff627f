"""Fewer passes of Python's cyclic garbage collector while the engine runs.

Why. A run allocates millions of short-lived containers (a processor-sharing part is a
list, a job another; SimPy's events), and CPython starts a young-generation pass every
700 net allocations, an older one every tenth of those, and a pass over the whole heap
when enough has survived. Those passes walk every live object each time: in ``gpusim
validate --from`` (63 runs in a process whose heap holds the dataset, the plans and the
profiles) they were a fifth of the CPU time, and in a causal run more. The engine's jobs
break their own reference cycles when they finish (:mod:`gpusim.engine.ps_channel`), so
little garbage needs the cyclic collector at all.

What. :func:`fewer_collections` raises the young generation's threshold for the length
of a run and puts the thresholds back after, so the collector still runs, about seventy
times less often; what a run leaves in cycles is collected after it as before. Nothing
the engine computes depends on when the collector runs: results do not move by a bit.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Net allocations between young-generation passes during a run (CPython's default: 700).
YOUNG_THRESHOLD = 50_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Within the block, the cyclic collector's young generation waits for
    :data:`YOUNG_THRESHOLD` allocations; the thresholds as they were afterwards."""
    before = gc.get_threshold()
    if before[0] == 0 or before[0] >= YOUNG_THRESHOLD:
        yield  # collection is off, or already as rare: leave it as the caller set it
        return
    gc.set_threshold(YOUNG_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
