"""dram_pattern's configurations and record table (CPU; the measurement needs a GPU)."""

from __future__ import annotations

import pytest

from gpusim.calibrate.dram_pattern import CONFIGS, table


def test_every_mode_has_the_contiguous_stream_and_strided_runs():
    assert {m for _r, m in CONFIGS} == {0, 1, 2}
    for mode in (0, 1, 2):
        runs = {r for r, m in CONFIGS if m == mode}
        assert 2048 in runs and min(runs) <= 8


def test_the_table_names_each_pattern():
    doc = {"kind": "gpusim.dram_pattern", "rows": [
        {"mode": "write", "run_bytes": 128, "contiguous": False, "bytes_moved": 4e9,
         "times_s": [1e-3, 2e-3], "bandwidth_bytes_per_s": 3e12},
        {"mode": "read", "run_bytes": 32768, "contiguous": True, "bytes_moved": 4e9,
         "times_s": [1e-3], "bandwidth_bytes_per_s": 4e12},
    ]}  # fmt: skip
    text = table(doc)
    assert "| write | 128 B, rows 32 KiB apart | 3.000 | 2.000-4.000 |" in text
    assert "| read | contiguous | 4.000 |" in text
    with pytest.raises(ValueError):
        table({"kind": "other"})
