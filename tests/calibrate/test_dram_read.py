"""The DRAM read-stream record (data/h200/2026-12-04_calibration_dram_read): its best read
configuration and its table."""

from __future__ import annotations

import json

import pytest

from gpusim.calibrate import dram_read
from gpusim.data.layout import DATA_DIR

RECORD = DATA_DIR / "h200" / "2026-12-04_calibration_dram_read" / "dram-read-h200.json"


def test_the_best_read_is_above_the_profile_s_copy_bandwidth():
    doc = json.loads(RECORD.read_text())
    best = dram_read.best_read(doc)
    assert not best["copy"] and best["bandwidth_bytes_per_s"] == pytest.approx(4.574e12, rel=1e-3)
    assert all(r["outputs_finite"] for r in doc["rows"])
    copies = [r["bandwidth_bytes_per_s"] for r in doc["rows"] if r["copy"]]
    assert len(copies) == 3 and max(copies) < best["bandwidth_bytes_per_s"]
    text = dram_read.table(doc)
    assert len(text.splitlines()) == len(doc["rows"]) + 2 and "best read: 4.574" in text


def test_a_record_of_something_else_is_refused():
    with pytest.raises(ValueError, match="not a dram_read record"):
        dram_read.best_read({"kind": "gpusim.sm_stream"})
