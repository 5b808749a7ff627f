"""The tile L2: LRU by bytes, partial hits, write-back accounting, hits under a miss."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim.engine.l2_cache import L2Cache


def test_a_reread_hits_and_the_least_recent_tile_goes_first():
    l2 = L2Cache(300)
    assert l2.read("a", 100)[0] == 100
    assert l2.read("b", 100)[0] == 100
    assert l2.read("a", 100)[0] == 0  # hit; now b is the least recently used
    assert l2.read("c", 150)[0] == 150  # 350 > 300: b is evicted
    assert "b" not in l2 and "a" in l2 and "c" in l2
    assert l2.resident_bytes <= 300


def test_reading_more_of_a_tile_than_is_resident_misses_the_difference():
    l2 = L2Cache(10_000)
    l2.read("t", 100)
    assert l2.read("t", 160)[0] == 60
    assert l2.read("t", 50)[0] == 0


def test_a_dirty_tile_costs_one_write_back_until_it_is_evicted():
    l2 = L2Cache(200)
    assert l2.write("o", 100) == 100
    assert l2.write("o", 100) == 0  # still resident and dirty: the write-back is owed once
    l2.read("x", 150)  # evicts o
    assert "o" not in l2
    assert l2.write("o", 100) == 100


def test_a_hit_on_a_line_still_being_filled_waits_for_the_fill():
    l2 = L2Cache(10_000)
    miss, ready = l2.read("k", 64, now=1000, fill_ticks=500)
    assert (miss, ready) == (64, 1500)
    miss, ready = l2.read("k", 64, now=1200, fill_ticks=500)
    assert (miss, ready) == (0, 1500)  # hit under miss: data arrives with the first fill
    miss, ready = l2.read("k", 64, now=2000, fill_ticks=500)
    assert (miss, ready) == (0, 1500)  # complete: no wait beyond the hit itself


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(0, 20), st.integers(1, 400)), min_size=1, max_size=80
    ),
    st.integers(100, 2000),
)
def test_misses_never_exceed_requests_and_residency_never_exceeds_capacity(ops, capacity):
    l2 = L2Cache(capacity)
    for is_write, key, nbytes in ops:
        if is_write:
            assert 0 <= l2.write(key, nbytes) <= nbytes
        else:
            miss, _ = l2.read(key, nbytes)
            assert 0 <= miss <= nbytes
        assert l2.resident_bytes <= capacity
