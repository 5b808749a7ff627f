"""cold_start's record: the table of the H200's run, and a one-line error otherwise."""

from __future__ import annotations

import json

from gpusim.calibrate.cold_start import MODES, main, table
from gpusim.data.layout import REPO_ROOT

RECORD = REPO_ROOT / "data/h200/2026-12-04_calibration_cold_start/cold-start-h200.json"


def test_the_readme_table_is_the_records():
    doc = json.loads(RECORD.read_text())
    text = table(doc)
    assert text in (RECORD.parent / "README.md").read_text()
    rows = {r["iters"]: r["median_s"] for r in doc["rows"]}
    # a kernel queued behind the flush: a few microseconds of launch, not the idle 8-9 us
    assert 2e-6 < rows[0]["flushed"] < 5e-6 < rows[0]["warm"]
    # warm translations change nothing measurable after the flush
    assert all(abs(m["flushed"] - m["flushed+touched"]) < 1e-6 for m in rows.values())
    assert set(MODES) == set(rows[0])


def test_a_file_that_is_no_record_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"kind": "something else"}))
    assert main(["--table", str(bad)]) != 0
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err
