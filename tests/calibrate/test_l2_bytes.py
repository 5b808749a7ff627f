"""The l2_bytes probe's command line without ncu, and its recorded H200 run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from algorithms.flash2 import PADDED_ROW_FETCH_FACTOR
from gpusim.calibrate import l2_bytes

RECORD = (
    Path(__file__).resolve().parents[2]
    / "reports/calibration/l2_bytes_h200_2026-11-30/l2-bytes-h200.json"
)


def test_without_ncu_it_says_so_in_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("gpusim.validation.ncu.find_ncu", lambda: None)
    assert l2_bytes.main(["--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: ncu not found"
    with pytest.raises(SystemExit):
        l2_bytes.main([])


def test_the_model_factor_is_the_recorded_one():
    recs = json.loads(RECORD.read_text())["records"]
    copies = [r for r in recs if r["kernel"] == "ldgsts_copy"]
    assert len(copies) == len(l2_bytes.COPIES)
    for r in copies:
        got = r["metrics"]["l1tex__m_xbar2l1tex_read_bytes.sum"] / r["requested_bytes"]
        padded = r["ld"] != r["d"]
        assert got == pytest.approx(PADDED_ROW_FETCH_FACTOR if padded else 1.0, abs=0.002)
