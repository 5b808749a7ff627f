"""The field-by-field comparison of two calibrated profiles, on the recorded H200 runs."""

from __future__ import annotations

import json

import yaml

from gpusim.calibrate import compare_profiles, profile_writer
from tests.calibrate.recorded_results import COMMITTED, DATASHEET, recorded_results


def _written(tmp_path, results):
    (tmp_path / "r.json").write_text(json.dumps(results))
    profile_writer.write_profile(results, DATASHEET, tmp_path / "p.yaml", "r.json")
    return yaml.safe_load((tmp_path / "p.yaml").read_text())


def test_a_value_outside_the_bracket_differs_and_one_inside_does_not(tmp_path):
    results = recorded_results()
    new = _written(tmp_path, results)
    old = yaml.safe_load(COMMITTED.read_text())
    rows = {r["field"]: r for r in compare_profiles.compare(new, old, results)}
    assert rows["simt_mma_flops_per_clk_per_sm"]["status"] == "same"
    old["simt_mma_flops_per_clk_per_sm"]["value"] = 154.0  # inside 153.7 .. 155.1
    old["fp32_flops_per_clk_per_sm"]["value"] = 240.0  # outside the repeats' 230.9 .. 232.2
    old["sm_count"]["value"] = 114
    rows = {r["field"]: r for r in compare_profiles.compare(new, old, results)}
    assert rows["simt_mma_flops_per_clk_per_sm"]["status"] == "within"
    assert rows["fp32_flops_per_clk_per_sm"]["status"] == "differs"
    assert (
        rows["fp32_flops_per_clk_per_sm"]["ratio"]
        == new["fp32_flops_per_clk_per_sm"]["value"] / 240.0
    )
    assert rows["sm_count"]["status"] == "differs (no repeats)"


def test_a_curve_is_read_at_the_old_points(tmp_path):
    results = recorded_results()
    new = _written(tmp_path, results)
    old = yaml.safe_load(COMMITTED.read_text())
    row = next(
        r
        for r in compare_profiles.compare(new, old, results)
        if r["field"] == "dram_share_by_inflight"
    )
    assert row["status"] == "within" and row["max_abs_diff"] == 0.0
    old["dram_share_by_inflight"]["value"][0][1] = 0.5  # 0.2967 measured
    row = next(
        r
        for r in compare_profiles.compare(new, old, results)
        if r["field"] == "dram_share_by_inflight"
    )
    assert row["status"] == "differs" and row["points_outside"] == 1
    assert row["at_x"] == 2048.0


def test_the_command_writes_both_files_and_bad_input_is_one_line(tmp_path, capsys):
    results = recorded_results()
    _written(tmp_path, results)
    out = tmp_path / "cmp"
    args = [str(tmp_path / "p.yaml"), str(COMMITTED), "--results", str(tmp_path / "r.json")]
    assert compare_profiles.main([*args, "--out", str(out)]) == 0
    assert "| simt_mma_flops_per_clk_per_sm |" in (out / "comparison.md").read_text()
    assert json.loads((out / "comparison.json").read_text())["rows"]
    bad = [str(tmp_path / "p.yaml"), str(COMMITTED), "--results", str(COMMITTED)]
    assert compare_profiles.main([*bad, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[-1].startswith("gpusim: error: ")


def test_a_table_valued_field_is_compared_whole(tmp_path):
    """The wgmma rates by N are a table per dtype and operand source (the records `gpusim
    calibrate` now applies put them into calibrated profiles): equal tables are the same, and
    the Markdown names the tables instead of printing them."""
    results = recorded_results()
    new = _written(tmp_path, results)
    old = yaml.safe_load(COMMITTED.read_text())
    table = old["wgmma_rate_by_n"]
    new["wgmma_rate_by_n"] = json.loads(json.dumps(table))
    rows = {r["field"]: r for r in compare_profiles.compare(new, old, results)}
    assert rows["wgmma_rate_by_n"]["status"] == "same"
    new["wgmma_rate_by_n"]["value"]["bf16/reg"][0][1] += 1.0
    rows = compare_profiles.compare(new, old, results)
    assert {r["field"]: r for r in rows}["wgmma_rate_by_n"]["status"] == "differs (no repeats)"
    assert f"| wgmma_rate_by_n | {len(table['value'])} tables |" in compare_profiles.markdown(
        rows, "n", "o"
    )
