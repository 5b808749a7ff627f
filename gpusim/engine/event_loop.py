"""A minimal discrete-event loop in integer ticks, ordered exactly as SimPy orders its events.

The engine schedules only plain callbacks: timers (a wait, a bandwidth channel's
next completion) and "after everything else of this tick" work (the dispatcher).
SimPy wraps each in an ``Event`` with a callback list and a generator-based
process machinery the engine does not need; at hundreds of thousands of events
per simulation that wrapping was a third of the wall time. This loop keeps
SimPy's order, ``(time, priority, scheduling sequence)``, so a simulation takes
exactly the same steps in the same order as it did on SimPy.

Entries are lists, not tuples, so that a timer can be cancelled in place
(:meth:`EventLoop.cancel` swaps its callback for a no-op): a bandwidth channel
moves its one timer often, and a cancelled entry costs only its pop, where a
version check would cost a closure per timer. A cancelled entry still pops at
its tick, as a superseded SimPy timeout did, so ``now`` moves exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush

#: Priorities, as SimPy's: lower runs first among events of one tick.
URGENT = 0
NORMAL = 1


def cancelled() -> None:
    """What a cancelled timer runs."""


class EventLoop:
    """Callbacks at integer ticks; ``events`` counts how many were scheduled."""

    __slots__ = ("_heap", "_seq", "events", "now")

    def __init__(self) -> None:
        self.now = 0
        self.events = 0
        self._seq = 0
        # [tick, priority, sequence, callback]; the sequence is unique, so the callbacks
        # are never compared.
        self._heap: list[list] = []

    def call_in(self, delay: int, fn: Callable[[], None], priority: int = NORMAL) -> list:
        """Run ``fn()`` ``delay`` ticks from now (after this tick's earlier-scheduled ones).

        Returns the entry, which :meth:`cancel` takes.
        """
        if delay < 0:
            raise ValueError(f"negative delay {delay}")
        self._seq += 1
        self.events += 1
        entry = [self.now + delay, priority, self._seq, fn]
        heappush(self._heap, entry)
        return entry

    @staticmethod
    def cancel(entry: list) -> None:
        """Make a pending ``call_in`` entry do nothing when its tick comes."""
        entry[3] = cancelled

    def run(self) -> None:
        """Process events until none is left."""
        heap = self._heap
        pop = heappop
        while heap:
            t, _p, _s, fn = pop(heap)
            self.now = t
            fn()
