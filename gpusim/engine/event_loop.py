"""A minimal discrete-event loop in integer ticks, ordered exactly as SimPy orders its events.

The engine schedules only plain callbacks: timers (a wait, a bandwidth channel's
next completion) and "after everything else of this tick" work (the dispatcher).
SimPy wraps each in an ``Event`` with a callback list and a generator-based
process machinery the engine does not need; at hundreds of thousands of events
per simulation that wrapping was a third of the wall time. This loop keeps
SimPy's order, ``(time, priority, scheduling sequence)``, so a simulation takes
exactly the same steps in the same order as it did on SimPy.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush

#: Priorities, as SimPy's: lower runs first among events of one tick.
URGENT = 0
NORMAL = 1


class EventLoop:
    """Callbacks at integer ticks; ``events`` counts how many were scheduled."""

    __slots__ = ("_heap", "_seq", "events", "now")

    def __init__(self) -> None:
        self.now = 0
        self.events = 0
        self._seq = 0
        self._heap: list[tuple[int, int, int, Callable[[], None]]] = []

    def call_in(self, delay: int, fn: Callable[[], None], priority: int = NORMAL) -> None:
        """Run ``fn()`` ``delay`` ticks from now (after this tick's earlier-scheduled ones)."""
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        self._seq += 1
        self.events += 1
        heappush(self._heap, (self.now + delay, priority, self._seq, fn))

    def run(self) -> None:
        """Process events until none is left."""
        heap = self._heap
        pop = heappop
        while heap:
            t, _p, _s, fn = pop(heap)
            self.now = t
            fn()
