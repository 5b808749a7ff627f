"""The engine's event loop runs callbacks in SimPy's order: time, priority, then scheduling."""

from __future__ import annotations

import pytest

from gpusim.engine.event_loop import NORMAL, URGENT, EventLoop


def test_callbacks_run_by_time_then_priority_then_order_of_scheduling():
    loop = EventLoop()
    log = []
    loop.call_in(5, lambda: log.append(("late", loop.now)))
    loop.call_in(2, lambda: log.append(("b", loop.now)), 2)
    loop.call_in(2, lambda: log.append(("a1", loop.now)))
    loop.call_in(2, lambda: log.append(("a2", loop.now)), NORMAL)
    loop.call_in(2, lambda: log.append(("urgent", loop.now)), URGENT)
    loop.run()
    assert log == [("urgent", 2), ("a1", 2), ("a2", 2), ("b", 2), ("late", 5)]
    assert loop.events == 5


def test_a_callback_scheduled_during_the_run_at_the_same_tick_runs_after_those_already_due():
    loop = EventLoop()
    log = []

    def first():
        log.append("first")
        loop.call_in(0, lambda: log.append("spawned"))

    loop.call_in(1, first)
    loop.call_in(1, lambda: log.append("second"))
    loop.run()
    assert log == ["first", "second", "spawned"]
    assert loop.now == 1


def test_negative_delays_are_refused():
    with pytest.raises(ValueError):
        EventLoop().call_in(-1, lambda: None)


def test_a_cancelled_callback_does_not_run_but_its_tick_still_comes():
    loop = EventLoop()
    log = []
    entry = loop.call_in(7, lambda: log.append("cancelled"))
    loop.call_in(3, lambda: log.append(("kept", loop.now)))
    loop.cancel(entry)
    loop.run()
    assert log == [("kept", 3)]
    assert loop.now == 7  # as a superseded SimPy timeout, it still moves the clock
