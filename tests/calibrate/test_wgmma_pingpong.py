"""The softmax's cycles per instruction from the committed wgmma_step record
(gpusim/calibrate/wgmma_pingpong.py): what it fits, and that the bound reproduces the
microbenchmark's own rows."""

from __future__ import annotations

import json

import pytest

from gpusim.calibrate import wgmma_pingpong as W
from gpusim.data.layout import REPO_ROOT
from gpusim.profiles.loader import load_profile

FOLDER = "data/h200/2026-12-04_calibration_wgmma_step"
DOC = json.loads((REPO_ROOT / FOLDER / "wgmma-step-h200.json").read_text())


def test_the_instruction_count_follows_wg_step_s_source():
    # Bc 128, d 128: 64 values a thread; 5 per value, 64 rescales, 13 fixed, and the 2 waits
    assert W.micro_instrs(128, 128) == pytest.approx(5 * 64 + 64 + 15)
    assert W.micro_instrs(192, 64) - W.micro_instrs(128, 64) == pytest.approx(5 * 32)


@pytest.mark.parametrize(
    ("family", "two", "three"), [("step", 3.784, 5.798), ("fill", 4.601, 7.300)]
)
def test_fitted_cycles_per_instruction(family, two, three):
    fit = W.fitted(DOC, family)
    assert fit == pytest.approx({2: two, 3: three}, abs=1e-3)


def test_one_warpgroup_and_hidden_rows_give_no_value():
    rows = W.rows(DOC, "step")
    one = [r for r in rows if r["warpgroups"] == 1]
    assert one and all(r["cycles_per_instr"] is None for r in one)
    hidden = [
        r
        for r in rows
        if r["warpgroups"] == 2 and r["step_cycles"] <= W.SHOWS * r["products_cycles"]
    ]
    assert {(r["block_n"], r["head_dim"]) for r in hidden} == {(64, 256), (96, 256)}
    assert all(r["cycles_per_instr"] is None for r in hidden)


@pytest.mark.parametrize(("family", "worst"), [("step", 0.075), ("fill", 0.105)])
def test_the_bound_at_the_fitted_value_reproduces_every_multi_warpgroup_row(family, worst):
    fit = W.fitted(DOC, family)
    for r in W.rows(DOC, family):
        if r["warpgroups"] < 2:
            continue
        got = W.step_cycles(
            r["products_cycles"], r["warpgroups"], r["instrs"], fit[r["warpgroups"]]
        )
        assert abs(got / r["step_cycles"] - 1) < worst, r


def test_unknown_rows_are_refused():
    with pytest.raises(ValueError, match="rows must be one of"):
        W.rows(DOC, "lag")


def test_apply_writes_fields_the_schema_takes(tmp_path):
    text = (REPO_ROOT / "hardware_profiles/h200-sxm.yaml").read_text()
    out = W.apply(text, DOC, FOLDER, "fill")
    path = tmp_path / "p.yaml"
    path.write_text(out)
    hw = load_profile(str(path))
    assert hw.wgmma_softmax_cycles_per_instr_2_warpgroups.value == pytest.approx(4.601, abs=1e-3)
    assert "--rows fill" in hw.wgmma_softmax_cycles_per_instr_3_warpgroups.source
    assert W.apply(out, DOC, FOLDER, "fill") == out  # applying twice changes nothing
