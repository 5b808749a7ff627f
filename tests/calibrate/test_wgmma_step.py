"""wgmma_step's record: what it says about an attention step's products and softmax."""

from __future__ import annotations

import json

import pytest

from gpusim.calibrate.wgmma import _smem
from gpusim.calibrate.wgmma_step import SHAPES, fill_smem_n, main, step_flops, step_table, table
from gpusim.data.layout import REPO_ROOT
from gpusim.reporting import wgmma_step_check

RECORD = REPO_ROOT / "data/h200/2026-12-04_calibration_wgmma_step/wgmma-step-h200.json"


@pytest.fixture(scope="module")
def doc():
    return json.loads(RECORD.read_text())


def _row(doc, bc, d, g, softmax):
    return next(
        r for r in doc["rows"]
        if (r["block_n"], r["head_dim"], r["warpgroups"], r["softmax"]) == (bc, d, g, softmax)
    )  # fmt: skip


def test_products_issued_together_reach_the_peak_at_every_bc(doc):
    for bc, d, g in SHAPES:
        if g >= 2:
            assert _row(doc, bc, d, g, False)["flops_per_clk_per_sm"] > 4050, (bc, d)


def test_the_softmax_hides_behind_long_products_only(doc):
    def adds(bc, d):
        return (
            _row(doc, bc, d, 2, True)["cycles_per_iter"]
            / _row(doc, bc, d, 2, False)["cycles_per_iter"]
            - 1
        )

    assert adds(128, 64) > 0.7 > adds(128, 128) > 0.1 > adds(64, 256)


def test_the_readme_quotes_the_tables(doc):
    readme = (RECORD.parent / "README.md").read_text()
    assert table(doc) in readme
    assert all(len(v) >= 1 for v in step_table(doc).values())
    rows = wgmma_step_check.rows()
    assert len(rows) == 8 and all(0.04 < r["kernel_over_micro"] < 0.25 for r in rows)


def test_the_fill_kernels_shared_memory_is_what_the_host_asks():
    for bc, d, g in SHAPES:
        assert _smem(fill_smem_n(bc, d), g + 1) >= 2048 + g * 8192 + 8 * bc * d
    assert step_flops(128, 128, 2) == 2 * 2 * 2 * 64 * 128 * 128


def test_a_record_of_another_kind_is_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="not a wgmma_step record"):
        step_table({"kind": "x"})
    bad = tmp_path / "r.json"
    bad.write_text("{}")
    assert main(["--table", str(bad)]) == 2
    assert "not a recorded run" in capsys.readouterr().err
