"""The engine's SimPy environment: SimPy's order, priorities of one's choosing, events counted."""

from __future__ import annotations

import pytest

from gpusim.engine.environment import NORMAL, URGENT, Environment, call_later
from gpusim.engine.kernel_run import DISPATCH_PRIORITY


def test_callbacks_run_by_time_then_priority_then_order_of_scheduling():
    env = Environment()
    log = []

    def note(name):
        return lambda _ev: log.append((name, env.now))

    call_later(env, 5, note("late"))
    call_later(env, 2, note("dispatch"), DISPATCH_PRIORITY)
    call_later(env, 2, note("a1"))
    env.timeout(2).callbacks.append(note("a2"))  # a plain SimPy timeout is NORMAL too
    call_later(env, 2, note("urgent"), URGENT)
    env.run()
    assert log == [("urgent", 2), ("a1", 2), ("a2", 2), ("dispatch", 2), ("late", 5)]
    assert env.events == 5


def test_an_event_scheduled_during_its_tick_runs_after_those_already_due():
    env = Environment()
    log = []

    def first(_ev):
        log.append("first")
        call_later(env, 0, lambda _e: log.append("spawned"), NORMAL)

    call_later(env, 1, first)
    call_later(env, 1, lambda _e: log.append("second"))
    env.run()
    assert log == ["first", "second", "spawned"]
    assert env.now == 1


def test_processes_count_their_own_steps():
    env = Environment()

    def proc():
        yield env.timeout(3)

    env.run(until=env.process(proc()))
    # start, the timeout, the end, and SimPy's re-scheduling of the event run() stopped at
    assert env.events == 4
    assert env.now == 3


def test_negative_delays_are_refused():
    with pytest.raises(ValueError):
        call_later(Environment(), -1, lambda _ev: None)
