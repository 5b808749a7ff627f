"""Sets 22 and 23's predict/compare command: a bad input is one line and exit 2."""

from __future__ import annotations

from gpusim.reporting.release_sets import main


def test_a_compare_without_a_measured_folder_is_one_line(tmp_path, capsys):
    for argv in (["partitions-compare"], ["tuning-compare", "--measured", str(tmp_path / "no")]):
        try:
            main([*argv, "--out", str(tmp_path / "x.json")])
        except SystemExit as exc:
            assert exc.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].endswith("needs --measured DIR, a folder of measured runs")
    assert not (tmp_path / "x.json").exists()


def test_missing_predictions_are_one_line(tmp_path, capsys):
    none, out_file = str(tmp_path / "none.json"), str(tmp_path / "x.json")
    rc = main(["partitions-compare", "--measured", str(tmp_path), "--predictions", none,
               "--out", out_file])  # fmt: skip
    out = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(out) == 1 and out[0].startswith("release_sets: error:")
