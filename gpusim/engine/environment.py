"""The engine's SimPy environment: integer ticks, and a count of the events it schedules.

Simulated time is a ``simpy.Environment``'s ``now``, in integer ticks
(:mod:`gpusim.engine.clock`: one tick is a picosecond). The engine's own
events are plain SimPy events with callbacks, scheduled through
``Environment.schedule`` with SimPy's ordering ``(time, priority, order of
scheduling)``: timers (``env.timeout``) and "after everything else of this
tick" work (:func:`call_later` at a priority above SimPy's ``NORMAL``). The
engine's work per event is small, so it uses callbacks rather than a
generator process per CTA; the kernel sequence and user processes are SimPy
processes (:mod:`gpusim.engine.sim`, :mod:`gpusim.engine.hook`).
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any

import simpy
from simpy.core import NORMAL, URGENT, EmptySchedule, StopSimulation
from simpy.events import Event, Timeout

__all__ = ["NORMAL", "URGENT", "Environment", "call_later"]


class Environment(simpy.Environment):
    """A ``simpy.Environment`` starting at tick 0 whose ``events`` counts what it scheduled."""

    def __init__(self) -> None:
        super().__init__(0)
        #: events scheduled so far (timers, superseded ones included, and process steps)
        self.events = 0

    def schedule(self, event: Event, priority: int = NORMAL, delay: int = 0) -> None:
        """SimPy's ``schedule``, counted."""
        self.events += 1
        # SimPy's own body (simpy.core.Environment.schedule), not a call to it: every event
        # of the engine passes here, and the extra call was a tenth of the engine's time.
        heappush(self._queue, (self._now + delay, priority, next(self._eid), event))

    def run(self, until: Any = None) -> Any:
        """SimPy's ``run``; until an event (the engine's kernel sequence), with ``step`` inlined.

        Every event of a simulation passes through this loop, and SimPy's ``run`` calls
        ``step`` once per event: the call was 7 % of a simulation's time. The body is
        ``simpy.core.Environment.step``'s, in its order, so the events and their effects
        are SimPy's to the bit; any other ``until`` is SimPy's own ``run``.
        """
        if not isinstance(until, Event) or until.callbacks is None:
            return super().run(until)
        until.callbacks.append(StopSimulation.callback)
        queue = self._queue
        try:
            while True:
                try:
                    self._now, _, _, event = heappop(queue)
                except IndexError:
                    raise EmptySchedule from None
                callbacks, event.callbacks = event.callbacks, None
                try:
                    for callback in callbacks:
                        callback(event)
                except StopSimulation:
                    event.callbacks = callbacks[callbacks.index(callback) + 1 :]
                    self.schedule(event, URGENT - 1)
                    raise
                if not event._ok and not hasattr(event, "_defused"):
                    exc = type(event._value)(*event._value.args)
                    exc.__cause__ = event._value
                    raise exc
        except StopSimulation as exc:
            return exc.args[0]
        except EmptySchedule:
            raise RuntimeError(
                f'No scheduled events left but "until" event was not triggered: {until}'
            ) from None


def call_later(
    env: simpy.Environment, delay: int, callback: Callable[[Event], Any], priority: int = NORMAL
) -> Event:
    """An event processed ``delay`` ticks from now at ``priority`` that calls ``callback(event)``.

    ``env.timeout`` with a priority of one's choosing (SimPy builds its ``run(until)`` event
    the same way): a priority above ``NORMAL`` runs after every normal event of its tick.
    """
    if delay < 0:
        raise ValueError(f"negative delay {delay}")
    event = Event(env)
    event._ok = True
    event._value = None
    event.callbacks.append(callback)
    env.schedule(event, priority, delay)
    return event


class Timer(Timeout):
    """A SimPy ``Timeout`` whose constant state (succeeded, no value) lives in the class:
    the engine makes one per event, and each attribute set on an instance costs."""

    _ok = True
    _value = None


_new = object.__new__


def timer(env: Environment, delay: int, callback: Callable[[Event], Any]) -> Timeout:
    """``Timeout(env, delay)`` with ``callback`` in place, ``Timeout.__init__``'s body and
    :meth:`Environment.schedule` inlined: the engine makes one per event (PS servers'
    completions, CTAs' waits), and the calls and the callback list's append were a
    measurable share of a run. ``delay`` >= 0 is the caller's promise."""
    t = _new(Timer)
    t.env = env
    t.callbacks = [callback]
    t._delay = delay
    env.events += 1
    heappush(env._queue, (env._now + delay, NORMAL, next(env._eid), t))
    return t
