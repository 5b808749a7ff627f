"""step_grouping's field from a record: each launch's efficiency against the four-warps-a-scheduler
reference, the two loops' mean, keyed by warps per CTA."""

from __future__ import annotations

import json

import pytest

from gpusim.calibrate import step_grouping as g


def record(cycles_per_warp) -> dict:
    rows = []
    for nld, per_ld, acc in g.LOOPS:
        for threads, ctas in g.SHAPES:
            warps = threads // 32 * ctas // 4
            rows.append({"nld": nld, "mma_per_ld": per_ld, "acc": acc, "threads": threads,
                         "ctas_per_sm": ctas, "warps_per_scheduler": warps,
                         "cycles_per_iteration_per_scheduler":
                         cycles_per_warp(per_ld, threads, ctas) * warps})  # fmt: skip
    return {"gpu": "a GPU", "date": "2026-12-06", "rows": rows}


def test_efficiencies_are_the_reference_over_each_launch():
    def cycles(per_ld, threads, ctas):
        return {(512, 1): 110.0, (128, 4): 90.0, (256, 1): 125.0}.get((threads, ctas), 100.0)

    eff = g.efficiencies(record(cycles))
    assert sorted(eff) == ["16", "4", "8"]
    assert eff["8"] == [[1, pytest.approx(0.8)], [2, 1.0]]
    assert eff["4"][3] == [4, pytest.approx(100 / 90, abs=1e-3)]
    assert eff["16"] == [[1, pytest.approx(100 / 110, abs=1e-3)]]


def test_the_table_command_prints_the_field_or_one_line(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record(lambda *a: 100.0)))
    assert g.main(["--table", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["value"]["4"][0] == [1, 1.0]
    assert g.main(["--table", str(tmp_path / "none.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
