"""Held-out set 13's verdict arithmetic (the set's measured recompute is in
tests/validation/test_inference_tuning_heldout13.py once measured)."""

from __future__ import annotations

import math

import pytest

from gpusim.reporting.inference_tuning import spearman, verdict  # spearman: gpusim.tuning.proof


def test_spearman_ranks_with_ties():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2], [5, 6, 7]) == pytest.approx(math.sqrt(3) / 2)
    assert math.isnan(spearman([1, 1], [2, 3]))


def _w(first: float, rule: float, rho: float) -> dict:
    return {"first_choice_over_best": first, "fixed_rule_over_best": rule, "spearman": rho}


def test_the_target_needs_every_workload_and_the_set_a_losing_rule():
    ok = verdict([_w(0.0, 0.2, 0.9), _w(0.02, 0.0, 0.86)])
    assert ok["qualifies"] and ok["target_met"]
    assert ok["first_choice_within_3pct"] == 2 and ok["spearman_at_least_0_85"] == 2
    miss = verdict([_w(0.0, 0.2, 0.9), _w(0.031, 0.0, 0.9)])
    assert miss["qualifies"] and not miss["target_met"]
    assert not verdict([_w(0.0, 0.049, 0.9)])["qualifies"]
    assert not verdict([_w(0.0, 0.2, 0.84)])["target_met"]
    assert not verdict([])["target_met"]


def test_a_folder_with_no_measured_runs_is_one_line_and_exit_2(tmp_path, capsys):
    from gpusim.reporting.inference_tuning import main
    from tests.validation.heldout_sets import H200, ROOT

    m = H200 / "2026-12-04_inference_tuning_heldout13/manifest_configs.json"
    p = ROOT / "reports/inference_tuning_heldout13/predictions.json"
    args = ["--manifest", str(m), "--predictions", str(p), "--measured", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no measured runs" in err[0]
