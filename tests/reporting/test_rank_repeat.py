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
