"""The step_size record (H100): the pipe rule's error does not follow the step's size."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.calibrate.step_size import LOOPS, table
from gpusim.profiles import load_profile

RECORD = (
    Path(__file__).resolve().parents[2]
    / "data/h100/2026-12-06_calibration_step_size/step-size.json"
)


def test_every_loop_ran_at_every_launch_shape():
    rows = table(json.loads(RECORD.read_text()), load_profile("h100-sxm5"))
    assert len(rows) == len(LOOPS) * 5


def test_across_ctas_every_size_keeps_the_size_8_efficiency_and_in_one_cta_small_is_slow():
    rows = table(json.loads(RECORD.read_text()), load_profile("h100-sxm5"))
    across = [r for r in rows if r["ctas_per_sm"] > 1]
    assert all(0.97 < r["over_size_8"] < 1.06 for r in across)
    one = {(r["nld"], r["acc"], r["threads"]): r["over_size_8"] for r in rows
           if r["ctas_per_sm"] == 1}  # fmt: skip
    # small steps slower, the large 4-products-per-load step faster: the opposite of the
    # attention kernels' slope (reports/pipe_core_look)
    assert all(one[(8, 4, t)] > 1.0 and one[(32, 16, t)] < 0.95 for t in (128, 256, 512))


def test_a_missing_record_is_one_line(tmp_path, capsys):
    from gpusim.calibrate.step_size import main

    assert main(["--table", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("step_size: error:")
