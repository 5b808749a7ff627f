"""The l2_bytes probe's command line without ncu, and its recorded H200 run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate import l2_bytes
from gpusim.profiles.loader import load_profile

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h200/2026-11-30_calibration_l2_bytes/l2-bytes-h200.json"
)


def test_without_ncu_it_says_so_in_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("gpusim.ncu.find_ncu", lambda: None)
    assert l2_bytes.main(["--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: ncu not found"
    with pytest.raises(SystemExit):
        l2_bytes.main([])


def test_the_model_factor_is_the_recorded_one():
    factor = load_profile("h200-sxm-datasheet").l2_fetch_bytes_per_byte_padded_row_copy.value
    recs = json.loads(RECORD.read_text())["records"]
    copies = [r for r in recs if r["kernel"] == "ldgsts_copy"]
    assert len(copies) == len(l2_bytes.COPIES)
    for r in copies:
        got = r["metrics"]["l1tex__m_xbar2l1tex_read_bytes.sum"] / r["requested_bytes"]
        padded = r["ld"] != r["d"]
        assert got == pytest.approx(factor if padded else 1.0, abs=0.002)


SURVIVE = RECORD.parents[1] / "2026-11-30_calibration_l2_survive/l2-bytes-h200.json"


def test_a_shared_set_survives_like_an_lru_of_38_mib():
    # Half of W is fetched again once W + P reaches 37-39 MiB, whatever W (4 to 24 MiB):
    # the figure data/h200/2026-11-30_calibration_l2_survive gives, recomputed.
    recs = [r for r in json.loads(SURVIVE.read_text())["records"] if r["kernel"] == "l2_survive"]
    dram = {
        (r["w_mib"], r["p_mib"], r["again"]): r["metrics"]["dram__bytes_read.sum"] for r in recs
    }
    for w in l2_bytes.SURVIVE_W_MIB:
        ps = l2_bytes.SURVIVE_P_MIB
        lost = [(dram[(w, p, 1)] - dram[(w, p, 0)]) / (w << 20) for p in ps]
        assert lost[0] == pytest.approx(0.0, abs=0.01) and lost[-1] == pytest.approx(1.0, abs=0.02)
        i = next(i for i in range(len(ps) - 1) if lost[i] < 0.5 <= lost[i + 1])
        half = ps[i] + (0.5 - lost[i]) / (lost[i + 1] - lost[i]) * (ps[i + 1] - ps[i])
        assert 36.5 <= w + half <= 39.5
