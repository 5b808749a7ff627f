"""The tile stream's law fitted to the committed H100 step_stream record."""

import json
from pathlib import Path

import pytest

from gpusim.calibrate.step_stream_fit import fit, main

RECORD = "data/h100/2026-12-06_calibration_step_stream/step-stream-h100.json"
H100_READ_BPS = 3.214120049656e12  # data/h100/2026-12-05_calibration/records/dr/dram-read.json


def test_the_law_follows_the_bare_stream_rows():
    got = fit(json.loads(Path(RECORD).read_text()), H100_READ_BPS)
    assert got["rows"] == 62
    assert got["mape"] < 0.035 and got["max_abs"] < 0.2
    # a latency above the chase's 0.34 us, an ingress above the SM's share of the stream
    assert 0.4e-6 < got["latency_s"] < 0.8e-6
    assert 100e9 < got["ingress_bytes_per_s"] < 500e9
    assert 1.5 < got["knee_power"] < 5


def test_too_few_rows_is_an_error():
    with pytest.raises(ValueError, match="fewer than 4"):
        fit({"rows": []}, H100_READ_BPS)


def test_no_read_stream_is_one_line_and_exit_2(capsys):
    assert main(["--record", RECORD]) == 2
    assert "read-bps" in capsys.readouterr().err
