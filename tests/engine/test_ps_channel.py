"""The processor-sharing server: equal shares, virtual time, weights, lanes, splits."""

from __future__ import annotations

import math

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim.engine.environment import Environment
from gpusim.engine.ps_channel import PSServer


def _server(*capacities: float) -> tuple[simpy.Environment, PSServer]:
    # The engine's environment: its servers' timers count themselves in it (environment.py).
    env = Environment()
    return env, PSServer(env, "test", [(f"lane{i}", c) for i, c in enumerate(capacities)])


def _submit_at(env, server, t, parts, log, name):
    def go():
        yield env.timeout(t)
        server.submit(parts, lambda: log.__setitem__(name, env.now))

    env.process(go())


def test_one_transfer_takes_size_over_capacity():
    env, s = _server(2.0)
    log = {}
    _submit_at(env, s, 0, [(0, 1, 1000.0, "m")], log, "a")
    env.run()
    assert log == {"a": 500}


def test_two_equal_transfers_finish_together_at_twice_the_time():
    env, s = _server(1.0)
    log = {}
    for name in "ab":
        _submit_at(env, s, 0, [(0, 1, 100.0, "m")], log, name)
    env.run()
    assert log == {"a": 200, "b": 200}


def test_a_late_arrival_slows_the_first_by_sharing_not_queueing():
    # a runs alone for 50 ticks, then both get half: a needs 100 more ticks, b finishes alone.
    env, s = _server(1.0)
    log = {}
    _submit_at(env, s, 0, [(0, 1, 100.0, "m")], log, "a")
    _submit_at(env, s, 50, [(0, 1, 100.0, "m")], log, "b")
    env.run()
    assert log == {"a": 150, "b": 200}


def test_a_weight_counts_as_that_many_transfers():
    env, s = _server(1.0)
    log = {}
    _submit_at(env, s, 0, [(0, 3, 100.0, "m")], log, "three")
    _submit_at(env, s, 0, [(0, 1, 100.0, "m")], log, "one")
    env.run()
    assert log == {"three": 400, "one": 400}


def test_a_job_on_two_lanes_ends_with_its_slower_part():
    env, s = _server(1.0, 4.0)
    log = {}
    _submit_at(env, s, 0, [(0, 1, 100.0, "m"), (1, 1, 800.0, "m")], log, "ab")
    env.run()
    assert log == {"ab": 200}


def test_splitting_a_job_changes_no_finishing_time():
    env, s = _server(1.0)
    log = {}
    jobs = {}

    def go():
        jobs["a"] = s.submit([(0, 4, 100.0, "m")], lambda: log.__setitem__("a", env.now))
        s.submit([(0, 1, 100.0, "m")], lambda: log.__setitem__("b", env.now))
        yield env.timeout(200)
        s.split(jobs["a"], lambda part: 1, lambda: log.__setitem__("a2", env.now))

    env.process(go())
    env.run()
    assert log == {"a": 500, "a2": 500, "b": 500}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=12), st.floats(0.5, 8.0))
def test_simultaneous_transfers_finish_as_processor_sharing_says(sizes, capacity):
    # With n transfers from t = 0, the k-th smallest ends when every transfer has received
    # its size: t_k = t_(k-1) + (s_k - s_(k-1)) * (n - k + 1) / capacity.
    env, s = _server(capacity)
    log = {}
    for i, size in enumerate(sizes):
        _submit_at(env, s, 0, [(0, 1, float(size), "m")], log, i)
    env.run()
    expect, t, prev = {}, 0.0, 0
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    for k, i in enumerate(order):
        t += (sizes[i] - prev) * (len(sizes) - k) / capacity
        prev = sizes[i]
        expect[i] = t
    for i in range(len(sizes)):
        # The schedule is exact; only the report of each completion rounds up to a tick.
        # (1e-6 either side: ``expect`` itself is a float sum.)
        assert expect[i] - 1e-6 <= log[i] <= expect[i] + 1 + 1e-6
    assert max(log.values()) <= sum(sizes) / capacity + 1 + 1e-6  # work conserving


def test_submit_kinds_weighs_parts_by_kind_or_by_their_count():
    # members x2 on lane 0 (100 each), a count of 3 on lane 1 (50 each), a zero count: none.
    env, s = _server(1.0, 1.0)
    log = {}
    job = s.submit_kinds(
        [(0, "members", 100.0, 0), (1, "one", 50.0, 3), (1, "one", 70.0, 0)],
        {"members": 2, "one": 0},
        lambda: log.__setitem__("a", env.now),
    )
    assert sorted((p[4], p[3]) for p in job[2]) == [(0, 2), (1, 3)]
    env.run()
    assert log == {"a": 200}


def test_a_superseded_timer_does_not_report_early():
    # b arrives while a's timer (t = 100) is pending and moves the next completion to
    # t = 80 (b alone on lane 1); a still finishes at 100 and b at 80.
    env, s = _server(1.0, 1.0)
    log = {}
    _submit_at(env, s, 0, [(0, 1, 100.0, "m")], log, "a")
    _submit_at(env, s, 10, [(1, 1, 70.0, "m")], log, "b")
    env.run()
    assert log == {"a": 100, "b": 80}


def test_on_the_engine_environment_a_superseded_timer_does_not_report_early_either():
    from gpusim.engine.environment import call_later

    env = Environment()
    s = PSServer(env, "test", [("lane0", 1.0), ("lane1", 1.0)])
    log = {}
    call_later(
        env, 0, lambda _e: s.submit([(0, 1, 100.0, "m")], lambda: log.__setitem__("a", env.now))
    )
    call_later(
        env, 10, lambda _e: s.submit([(1, 1, 70.0, "m")], lambda: log.__setitem__("b", env.now))
    )
    env.run()
    assert log == {"a": 100, "b": 80}
    # Two submits, the first timer (a at 100), the second (b at 80), and a's timer again
    # after b ended (the stale one at 100 does nothing).
    assert env.events == 5


def test_a_capacity_change_retimes_the_transfers_in_flight():
    # 100 units at 1/tick; at t = 20 the lane drops to 0.5/tick: 80 left take 160 more.
    env, s = _server(1.0)
    log = {}

    def throttle():
        yield env.timeout(20)
        s.set_capacity(0, 0.5)

    _submit_at(env, s, 0, [(0, 1, 100.0, "m")], log, "a")
    env.process(throttle())
    env.run()
    assert log == {"a": 180}


def test_a_capacity_change_and_back_costs_the_work_lost_meanwhile_under_sharing():
    # Two transfers of 100 (weight 3 and 1) share capacity 2: alone they end at 200. Halving
    # the capacity for 40 ticks serves 40 units less in all, 20 ticks at full capacity later.
    env, s = _server(2.0)
    log = {}

    def throttle():
        yield env.timeout(30)
        s.set_capacity(0, 1.0)
        yield env.timeout(40)
        s.set_capacity(0, 2.0)

    _submit_at(env, s, 0, [(0, 3, 100.0, "m")], log, "three")
    _submit_at(env, s, 0, [(0, 1, 100.0, "m")], log, "one")
    env.process(throttle())
    env.run()
    assert log == {"three": 220, "one": 220}


def test_a_capacity_must_be_positive_and_finite():
    _env, s = _server(1.0)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            s.set_capacity(0, bad)


def test_a_lane_counts_the_ticks_it_had_nothing_in_flight():
    # Lane 0: busy 0-100, idle 100-300, busy 300-350. Lane 1 has work 0-50 only: the
    # server's timer fires at that part's end, and the lane idles from then to the end.
    env, s = _server(1.0, 1.0)
    log = {}
    _submit_at(env, s, 0, [(0, 1, 100.0, "m"), (1, 1, 50.0, "m")], log, "a")
    _submit_at(env, s, 300, [(0, 1, 50.0, "m")], log, "b")
    env.run()
    assert log == {"a": 100, "b": 350}
    assert s.lanes[0].idle == 200
    assert s.lanes[1].idle == 350 - 50
