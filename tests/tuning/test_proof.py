"""Figures of the hardware proof, computed from a recorded (here: synthetic) run."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpusim.schedule import Schedule
from gpusim.tuning.proof import evaluate, evaluate_workload, ranks, spearman, summary
from gpusim.workload import Workload


def test_ranks_average_ties():
    assert ranks([3.0, 1.0, 3.0, 2.0]) == [3.5, 1.0, 3.5, 2.0]


def test_spearman_perfect_and_reversed():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_spearman_constant_is_nan():
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


@given(st.lists(st.integers(-1000, 1000), min_size=2, max_size=20, unique=True))
def test_spearman_is_invariant_under_monotone_maps(xs):
    ys = [x**3 + 7 for x in xs]
    assert spearman(xs, ys) == pytest.approx(1.0)


def _entry(pred_meas):
    """A recorded workload with schedules Br64/128 x Bc 32/64/128, warps 4, stages 2."""
    tiles = [(64, 32), (64, 64), (64, 128), (128, 32), (128, 64), (128, 128)]
    rows = [
        {
            "schedule": Schedule(block_m=bm, block_n=bn, warps=4, stages=2).model_dump(),
            "predicted_s": p,
            "measured_s": m,
        }
        for (bm, bn), (p, m) in zip(tiles, pred_meas, strict=True)
    ]
    w = Workload(batch=1, heads=8, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="bf16")
    return {"workload": w.model_dump(), "sram_bytes": 232448, "schedules": rows}


def test_evaluate_workload_loss_spearman_and_rules():
    # The model ranks (128, 64) first; the GPU says (128, 128) is best, 10 % faster.
    entry = _entry([(6, 6.0), (5, 5.0), (4, 4.0), (3, 3.0), (1, 2.2), (2, 2.0)])
    p = evaluate_workload(entry)
    assert (p.tuner_choice.block_m, p.tuner_choice.block_n) == (128, 64)
    assert (p.measured_best.block_m, p.measured_best.block_n) == (128, 128)
    assert p.tuner_loss == pytest.approx(0.1)
    assert p.spearman == pytest.approx(1 - 6 * 2 / (6 * 35))
    # Both rules snap to (128, 128) at 227 KiB, head dim 128, bf16: measured best, no loss.
    assert p.rule_loss == {"paper": pytest.approx(0.0), "seed": pytest.approx(0.0)}


def test_unmeasured_schedules_are_left_out():
    entry = _entry([(1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0), (5, 5.0), (6, 6.0)])
    entry["schedules"][0]["measured_s"] = None
    p = evaluate_workload(entry)
    assert p.schedules == 5
    assert (p.tuner_choice.block_m, p.tuner_choice.block_n) == (64, 64)


def test_predictor_replaces_recorded_predictions():
    entry = _entry([(1, 6.0), (2, 5.0), (3, 4.0), (4, 3.0), (5, 2.0), (6, 1.0)])
    assert evaluate_workload(entry).spearman == pytest.approx(-1.0)
    p = evaluate_workload(entry, predict=lambda w, ss: [-s.block_m * s.block_n for s in ss])
    assert p.tuner_loss == pytest.approx(0.0)


def test_summary_counts_and_fails_below_targets():
    good = _entry([(1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0), (5, 5.0), (6, 6.0)])
    bad = _entry([(6, 1.0), (5, 2.0), (4, 3.0), (3, 4.0), (2, 5.0), (1, 6.0)])
    s = summary(evaluate({"workloads": [good] * 7 + [bad]}))
    assert s["workloads"] == 8 and s["within_5pct"] == 7
    assert not s["passes"]  # the bad workload's Spearman is -1
    assert summary(evaluate({"workloads": [good] * 8}))["passes"]
