"""The grid: batch-head-major order, class runs, timing classes."""

from __future__ import annotations

from gpusim.engine.grid import Grid


def test_class_runs_merge_across_batch_heads_and_split_where_the_class_changes():
    # 4 blocks per bh; block 3 is ragged (class 1) with the same timing as class 0.
    g = Grid(4, 3, [0, 0, 0, 1])
    assert g.total == 12
    assert g.class_runs(2, 9) == [(2, 3, 0), (3, 4, 1), (4, 7, 0), (7, 8, 1), (8, 9, 0)]
    timing = Grid(4, 3, [0, 0, 0, 1], timing_of_class=[0, 0])
    assert timing.class_runs(2, 9) == [(2, 9, 0)]
    assert timing.mixed


def test_bh_runs_split_at_batch_heads_and_name_the_class():
    g = Grid(4, 3, [0, 0, 0, 1], timing_of_class=[0, 0])
    assert g.bh_runs(2, 7) == [(0, 2, 1, 0), (0, 3, 1, 1), (1, 0, 3, 0), (1, 3, 1, 1), (2, 0, 1, 0)]
    plain = Grid(4, 3, [0, 0, 0, 0])
    assert plain.bh_runs(2, 7) == [(0, 2, 2, 0), (1, 0, 4, 0), (2, 0, 1, 0)]


def test_a_grid_launched_last_block_first():
    # 4 blocks per bh, block 3 ragged (class 1): launched 3, 2, 1, 0 in each batch-head.
    g = Grid(4, 3, [0, 0, 0, 1], timing_of_class=[0, 0], last_first=True)
    assert [g.block_class(b) for b in range(4)] == [0, 0, 0, 1]
    assert g.class_at(0) == g.class_at(4) == 0  # timing classes, in launch order
    # CTAs 2..8: blocks 1, 0 of bh 0; 3 (ragged), 2, 1, 0 of bh 1; 3 of bh 2
    assert g.bh_runs(2, 7) == [(0, 0, 2, 0), (1, 3, 1, 1), (1, 0, 3, 0), (2, 3, 1, 1)]
    plain = Grid(4, 3, [0, 0, 0, 0], last_first=True)
    assert plain.bh_runs(1, 5) == [(0, 0, 3, 0), (1, 2, 2, 0)]
    causal = Grid(4, 1, [0, 1, 2, 3], last_first=True)
    assert [causal.class_runs(n, n + 1)[0][2] for n in range(4)] == [3, 2, 1, 0]
