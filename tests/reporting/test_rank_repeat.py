"""The repeat-measurement ceiling: a second measurement scored as a model would be."""

from __future__ import annotations

import json
import math

from gpusim.data.layout import REPO_ROOT
from gpusim.reporting.rank_repeat import compare

FIRST = REPO_ROOT / "data/h100/2026-12-07_tuner_heldout34"


def _perturbed(tmp_path, scale):
    lines = (FIRST / "sweep.jsonl").read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        r = json.loads(line)
        if r.get("median_s") is not None:
            r["median_s"] *= scale(i)
        out.append(json.dumps(r))
    (tmp_path / "sweep.jsonl").write_text("\n".join(out) + "\n")
    return tmp_path


def test_the_same_measurement_meets_the_target_and_scatter_is_scored(tmp_path):
    same = compare("34", FIRST, FIRST)
    assert same["repeat"]["mape"] == 0.0
    assert same["second_ranks_first"]["verdict"]["target_met"]
    # A scatter of up to 3 % run to run: the repeat MAPE follows, and the ranking can only lose.
    second = _perturbed(tmp_path, lambda i: 1 + 0.03 * math.sin(7.0 * i))
    doc = compare("34", FIRST, second)
    assert 0.015 < doc["repeat"]["mape"] < 0.025
    assert doc["runs_both_ok"] == same["runs_both_ok"] == 121
    v = doc["second_ranks_first"]["verdict"]
    assert v["spearman_at_least_0_85"] <= 6 and v["workloads"] == 6
    assert set(doc["profiles"]) == {"h100-sxm5", "h100-sxm5-core"}


def test_the_h100_sets_measured_twice_agree_within_the_tuner_target():
    """Sets 34 and 35 timed twice on an H100 (2026-12-07): run to run within about 1 %, and
    the second measurement ranks the first as issue 19's tuner target asks in 11 of 12
    workloads (Spearman >= 0.94 in all): the target is not below the GPU's noise."""
    set35 = REPO_ROOT / "data/h100/2026-12-07_grouping_heldout35"
    for name, first in (("34", FIRST), ("35", set35)):
        doc = compare(name, first, first.with_name(first.name + "_repeat"))
        assert doc["runs_both_ok"] >= 121 and doc["repeat"]["mape"] < 0.015
        v = doc["second_ranks_first"]["verdict"]
        assert v["spearman_at_least_0_85"] == 6 and v["first_choice_within_3pct"] >= 5
        assert min(doc["second_ranks_first"]["spearman"].values()) > 0.9


def test_a_folder_with_no_runs_is_one_line_and_exit_2(tmp_path, capsys):
    from gpusim.reporting.rank_repeat import main

    out = tmp_path / "out.json"
    assert main(["--set", "34", "--first", str(FIRST), "--second", str(tmp_path),
                 "--out", str(out)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no run measured ok" in err and not out.exists()
