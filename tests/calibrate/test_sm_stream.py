"""The per-SM streaming benchmark's table of a record (the GPU run is on the device only)."""

from __future__ import annotations

from gpusim.calibrate import sm_stream
from gpusim.calibrate.dram_mlp import THREADS, WORD_BYTES


def test_the_table_gives_bandwidth_per_sm_by_source_inflight_and_sms():
    rows = [
        {"source": "dram", "sms": s, "read_bytes_in_flight_per_sm": 32768,
         "bandwidth_per_sm_bytes_per_s": bw}
        for s, bw in ((1, 40e9), (132, 30e9))
    ]  # fmt: skip
    table = sm_stream.per_sm_table({"rows": rows})
    assert table == {"dram": {32768: {1: 40.0, 132: 30.0}}}


def test_the_largest_trip_keeps_a_decode_tile_in_flight():
    # 64 keys x 128 dims x 2 bytes, K and V: what a decode step of the 64x64 tile loads.
    assert THREADS * max(sm_stream.LOADS) * WORD_BYTES == 64 * 128 * 2 * 2
    assert sm_stream.SMS[-1] == 132 and min(sm_stream.SMS) == 1


def test_the_recorded_run_prints_its_table(capsys):
    from gpusim.data.layout import REPO_ROOT

    path = REPO_ROOT / "data/h200/2026-12-04_calibration_sm_stream/sm-stream-h200.json"
    assert sm_stream.main(["--table", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 + 6  # two sources x three amounts in flight
    dram32 = next(line for line in out if line.startswith("dram") and " 32 KiB" in line)
    assert "28.6" in dram32 and "23.7" in dram32


def test_a_table_of_no_record_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    assert sm_stream.main(["--table", str(bad)]) == 2
    assert sm_stream.main(["--table", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(e.startswith("sm_stream: error:") for e in err)
