"""The tile L2: LRU by bytes, partial hits, write-back accounting, hits under a miss."""

from __future__ import annotations

import pytest
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


MIB = 1 << 20
#: a loss curve shaped like the H200's (nothing lost at 10 MiB, half at 20, all at 30)
CURVE = [(10 * MIB, 0.0), (20 * MIB, 0.5), (30 * MIB, 1.0)]
#: the shipped profiles' l2_line_bytes
LINE_BYTES = 128


def test_with_a_loss_curve_a_shallow_reread_hits_and_a_deep_one_misses():
    l2 = L2Cache(1, CURVE, LINE_BYTES)  # the capacity plays no part with a curve
    l2.read("k", MIB)
    l2.read("x", 5 * MIB)  # k is 5 MiB deep: below the curve's first loss
    assert l2.read("k", MIB)[0] == 0
    l2.read("y", 40 * MIB)  # now 40 MiB deep, past the curve's end: dropped
    assert "k" not in l2
    assert l2.read("k", MIB)[0] == MIB


def test_with_a_loss_curve_a_reread_loses_the_curves_share_at_its_depth():
    l2 = L2Cache(1, CURVE, LINE_BYTES)
    l2.read("k", MIB)
    l2.read("x", 20 * MIB)  # 20 MiB brought in since k was touched: half is lost
    miss, _ = l2.read("k", MIB)
    assert miss == MIB // 2
    # The refetched half counts as bytes brought in, and the tile is fresh again.
    assert l2.read("k", MIB)[0] == 0


def test_with_a_loss_curve_writes_age_tiles_as_reads_do():
    l2 = L2Cache(1, CURVE, LINE_BYTES)
    l2.read("k", MIB)
    assert l2.write("o", 20 * MIB) == 20 * MIB
    assert l2.read("k", MIB)[0] == MIB // 2


def test_a_partial_loss_waits_for_dram_as_likely_as_any_line_was_lost():
    l2 = L2Cache(1, CURVE, LINE_BYTES)
    l2.read("k", 128 * 100, now=0, fill_ticks=0)
    l2.read("x", 12 * MIB)  # 12 MiB deep: 10 % of each line lost
    miss, ready = l2.read("k", 128 * 100, now=1000, fill_ticks=500)
    assert 0 < miss < 128 * 100
    # 100 lines, each lost with 10 %: almost surely one is, so nearly the whole fill.
    assert 1000 + 0.99 * 500 <= ready <= 1500


def test_the_profiles_line_size_sets_how_likely_a_partial_loss_waits():
    # The same tile as one line of 12,800 bytes: lost with 10 %, so a tenth of the fill.
    l2 = L2Cache(1, CURVE, 128 * 100)
    l2.read("k", 128 * 100, now=0, fill_ticks=0)
    l2.read("x", 12 * MIB)
    _, ready = l2.read("k", 128 * 100, now=1000, fill_ticks=500)
    assert ready == 1000 + round(500 * 0.1)


def test_a_loss_curve_without_a_line_size_is_refused():
    with pytest.raises(ValueError, match="line_bytes"):
        L2Cache(1, CURVE)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(1, 8 * MIB)), max_size=40))
def test_with_a_loss_curve_misses_never_exceed_what_is_read(ops):
    l2 = L2Cache(1, CURVE, LINE_BYTES)
    for key, n in ops:
        miss, _ = l2.read(key, n)
        assert 0 <= miss <= n
