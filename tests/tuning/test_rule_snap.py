"""Snapping the paper's and seed 000's tiles onto runnable schedules."""

from hypothesis import given
from hypothesis import strategies as st

from gpusim.schedule import Schedule
from gpusim.tuning.rule_snap import rule_picks, rule_tiles, snap_tile
from gpusim.workload import Workload

TILES = [(64, 32), (64, 64), (64, 128), (128, 32), (128, 64), (128, 128)]


def test_snap_exact_tile_is_kept():
    assert snap_tile((64, 64), TILES) == (64, 64)


def test_snap_goes_to_nearest_ratio():
    # 227 is nearer 128 than 64 in log2; 48 is nearer 64 than 32 (48/32 = 1.5 > 64/48).
    assert snap_tile((128, 227), TILES) == (128, 128)
    assert snap_tile((48, 48), TILES) == (64, 64)


def test_snap_tie_prefers_smaller_tile():
    # sqrt(32 * 64) ~ 45.25 is equally far from 32 and 64 in log2.
    assert snap_tile((64, 2**5.5), TILES) == (64, 32)


@given(st.integers(1, 4096), st.integers(1, 4096))
def test_snap_returns_a_member_at_least_as_near_as_any(bm, bn):
    import math

    got = snap_tile((bm, bn), TILES)
    assert got in TILES

    def d(t):
        return abs(math.log2(t[0] / bm)) + abs(math.log2(t[1] / bn))

    assert all(d(got) <= d(t) + 1e-9 for t in TILES)


def test_rule_tiles_for_h200_head_dim_128_bf16():
    w = Workload(head_dim=128, dtype="bf16")
    tiles = rule_tiles(w, 232448)
    # M = 116224 elements; ceil(M / 512) = 227; the paper caps Br at d, the seed caps Bc.
    assert tiles["paper"] == (128, 227)
    assert tiles["seed"] == (227, 128)


def test_rule_pick_uses_best_warps_and_stages_of_the_tile_and_reports_loss():
    w = Workload(head_dim=64, dtype="fp16")
    fast = Schedule(block_m=128, block_n=64, warps=8, stages=2)
    ranked = [
        (fast, 1.0),
        (Schedule(block_m=64, block_n=64, warps=4, stages=2), 1.5),
        (Schedule(block_m=64, block_n=64, warps=4, stages=3), 1.2),
    ]
    # 48 KiB fp16, d = 64: M = 24576; ceil(M / 256) = 96 -> paper (64, 96), seed (96, 64).
    picks = {p.rule: p for p in rule_picks(w, 48 * 1024, ranked)}
    assert (picks["paper"].raw_block_m, picks["paper"].raw_block_n) == (64, 96)
    assert picks["paper"].schedule == ranked[2][0]
    assert abs(picks["paper"].slower_than_best - 0.2) < 1e-12
    # 96 is nearer 128 than 64 by ratio (4/3 < 3/2): the seed's tile snaps to (128, 64).
    assert picks["seed"].schedule == fast
    assert picks["seed"].slower_than_best == 0.0


def test_rule_picks_empty_when_nothing_ranked():
    assert rule_picks(Workload(), 1024, []) == []
