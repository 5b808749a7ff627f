"""The whole report on small figures: reproducible bytes, README, --only, and the CLI contract."""

from __future__ import annotations

import json

import pytest

from gpusim.errors import GpusimError
from gpusim.reporting import report_runner as runner
from gpusim.reporting.fig_tuning import TunerHeatmap
from gpusim.reporting.fig_validation import PredictedVsMeasured
from gpusim.reporting.report_runner import build_report, select

from .conftest import small_figures


def _figures():
    return [*small_figures(), PredictedVsMeasured(), TunerHeatmap()]


def _tree(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_two_runs_give_the_same_bytes_and_a_readme(tmp_path):
    (tmp_path / "none").mkdir()  # a data folder with nothing recorded in it
    a = build_report(tmp_path / "a", tmp_path / "none", figures=_figures, jobs=1)
    build_report(tmp_path / "b", tmp_path / "none", figures=_figures, jobs=1)
    ta, tb = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert ta.keys() == tb.keys()
    assert [n for n in ta if ta[n] != tb[n]] == []
    assert len(a.files) == len(ta)
    assert not [n for n in ta if n.endswith(".tmp")]
    names = {p.name for p in a.files}
    for f in _figures():
        assert f"{f.name}.csv" in names
    assert "fig5_timeline.trace.json" in names
    assert "fig6a_predicted_vs_measured.png" not in names  # nothing recorded, nothing drawn

    readme = (tmp_path / "a" / "README.md").read_text()
    for f in _figures():
        assert f"## {f.title}" in readme
        assert f"`gpusim report --only {f.name.split('_')[0]}`" in readme
        if a.figures[f.name].drawable:
            assert f"]({f.name}.png)" in readme
    assert readme.count("Not there yet") == 2
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["fig6a_predicted_vs_measured"]["summary"] == {"recorded": False}
    assert (
        summary["fig3_loop_orders"]["summary"]["h200-sxm-datasheet"]["order_by_global_bytes"][0]
        == "flash2"
    )


def test_only_rebuilds_one_figure_and_leaves_the_readme(tmp_path):
    (tmp_path / "none").mkdir()
    report = build_report(tmp_path, tmp_path / "none", only=["fig3"], figures=_figures, jobs=1)
    assert sorted(p.name for p in report.files) == [
        "fig3_loop_orders.csv",
        "fig3_loop_orders.md",
        "fig3_loop_orders.png",
    ]
    assert not (tmp_path / "README.md").exists()
    with pytest.raises(GpusimError, match="unknown figure 'fig9'"):
        select(_figures(), ["fig9"])
    assert [f.name for f in select(_figures(), ["fig6"])] == [
        "fig6a_predicted_vs_measured",
        "fig6b_tuner_heatmap",
    ]
    assert [f.name for f in select(_figures(), ["fig1", "fig1_standard_vs_flash"])] == [
        "fig1_standard_vs_flash"
    ]


def _cheap_figures():
    return [small_figures()[2], PredictedVsMeasured(), TunerHeatmap()]


def test_gpusim_report_json(tmp_path, monkeypatch, capsys):
    from gpusim.cli.main import run

    monkeypatch.setattr(runner, "default_figures", lambda *a, **k: _cheap_figures())
    (tmp_path / "none").mkdir()  # a data folder with nothing recorded in it
    code = run(["report", "--out", str(tmp_path), "--data", str(tmp_path / "none"), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    [line] = captured.out.splitlines()
    out = json.loads(line)
    assert sorted(out["files"]) == sorted(str(p) for p in tmp_path.iterdir() if p.is_file())
    assert any("recorded under data/" in n for n in out["notes"])
    assert "report" in captured.err  # the progress bar and logs go to standard error


def test_gpusim_report_missing_data_folder_is_one_line(tmp_path, monkeypatch, capsys):
    """A mistyped --data used to run the whole report as if nothing had been measured."""
    from gpusim.cli.main import run

    monkeypatch.setattr(runner, "default_figures", lambda *a, **k: _cheap_figures())
    code = run(["report", "--out", str(tmp_path / "r"), "--data", str(tmp_path / "nope")])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    [line] = captured.err.strip().splitlines()
    assert line == f"gpusim: error: --data {tmp_path / 'nope'}: no such folder"
    assert not (tmp_path / "r").exists()


def test_gpusim_report_unknown_figure_is_one_line(tmp_path, monkeypatch, capsys):
    from gpusim.cli.main import run

    monkeypatch.setattr(runner, "default_figures", lambda *a, **k: _cheap_figures())
    code = run(["report", "--out", str(tmp_path), "--only", "nope", "--json"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines()[-1].startswith("gpusim: error: unknown figure 'nope'")
