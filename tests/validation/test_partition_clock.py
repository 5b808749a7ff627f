"""partition_clock's record table (CPU; the measurement itself needs a GPU)."""

from __future__ import annotations

import json

import pytest

from gpusim.validation.partition_clock import main, protocol_clock_hz, table


def _variant(name: str, mhz: float) -> dict:
    launches = [{"clock_hz": mhz * 1e6, "ms": 2.0, "timed": k >= 2} for k in range(12)]
    launches[0]["clock_hz"] = 1.0  # a warm-up launch: not in the protocol's clock
    proto = [{"target_s": t, "tiles": 10, "launches": launches, "median_clock_hz": mhz * 1e6,
              "median_ms": 2.0} for t in (2e-3, 6e-2)]  # fmt: skip
    return {"variant": name, "per_tile_s": 3e-6, "protocol": proto,
            "sustained": [{"t_s": 1.5, "clock_hz": (mhz - 10) * 1e6, "ms": 50.0}],
            "smi_sustained": {"power_w": {"median": 300.0}}}  # fmt: skip


def _doc() -> dict:
    return {
        "kind": "gpusim.partition_clock",
        "partitions": [
            {"partition": {"sm_count": n}, "variants": [_variant("products", mhz)]}
            for n, mhz in ((8, 1980.0), (132, 1790.0))
        ],
    }


def test_the_protocol_clock_is_the_timed_launches_median():
    assert protocol_clock_hz(_doc()["partitions"][0]["variants"][0]) == pytest.approx(1.98e9)


def test_the_table_has_a_row_per_size_and_variant(tmp_path, capsys):
    text = table(_doc())
    assert "| 8 | products | 1980 | 1980 | 1970 | 1980 | 3.00 | 300 |" in text
    assert "| 132 | products | 1790 |" in text
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_doc()))
    assert main(["--table", str(path)]) == 0
    assert "| 8 | products |" in capsys.readouterr().out
    path.write_text(json.dumps({"kind": "other"}))
    assert main(["--table", str(path)]) == 2
    assert "not a recorded run" in capsys.readouterr().err
