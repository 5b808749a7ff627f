"""The softmax's cycles per instruction from the committed wgmma_step record
(gpusim/calibrate/wgmma_pingpong.py): what it fits, and that the bound reproduces the
microbenchmark's own rows."""

from __future__ import annotations

import json

import pytest

from gpusim.calibrate import wgmma_pingpong as W
from gpusim.data.layout import REPO_ROOT
from gpusim.engine.wgmma_rates import pingpong_cpi
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


def _synthetic():
    """The committed record with a Bc 176 d128 products row and fill row (two warpgroups)
    and a three-stage ring row at Bc 96 d64 (three warpgroups), as a full run would add."""
    doc = json.loads(json.dumps(DOC))
    t = 1000.0
    doc["rows"].append({"block_n": 176, "head_dim": 128, "warpgroups": 2, "softmax": False,
                        "kind": "step", "cycles_per_iter": t})  # fmt: skip
    doc["fill_rows"].append({"block_n": 176, "head_dim": 128, "warpgroups": 2, "softmax": True,
                             "kind": "fill", "cycles_per_iter": t / 2 + 5.0 * W.micro_instrs(
                                 176, 128)})  # fmt: skip
    prod96 = next(r for r in DOC["rows"] if (r["block_n"], r["head_dim"], r["warpgroups"],
                                             r["softmax"]) == (96, 64, 3, False))  # fmt: skip
    doc["ring_rows"] = [{"block_n": 96, "head_dim": 64, "warpgroups": 3, "stages": 3,
                         "softmax": True, "kind": "ring", "cycles_per_iter":
                         prod96["cycles_per_iter"] / 3 + 6.5 * W.micro_instrs(96, 64)}]  # fmt: skip
    return doc


def test_the_committed_record_gives_no_table_and_the_same_fields():
    assert W.by_block_n(DOC, "fill") == W.by_block_n(DOC, "step") == {}
    assert W.BY_BLOCK_N not in W.entries(DOC, FOLDER, "fill")


def test_a_bc176_row_gives_its_tile_its_own_c_and_leaves_the_field():
    doc = _synthetic()
    assert W.by_block_n(doc, "fill") == {"2/128": [[176, 5.0]]}
    fit = W.fitted(doc, "fill")
    assert fit[2] == pytest.approx(4.601, abs=1e-3)  # the mean over SHAPES' rows, as before
    assert fit[3] == pytest.approx(6.5)  # the three-stage ring's row, not the two-stage fill's
    assert W.fitted(doc, "step") == pytest.approx(W.fitted(DOC, "step"))  # no ring for wg_step


def test_a_bc176_row_goes_to_a_variants_table_and_to_no_profile(tmp_path):
    """Held-out set 7 did not keep the per-tile table: apply writes none (and takes away an
    earlier one); a held-out variant still gets it from entries' ``tiles``."""
    from gpusim.profiles.schema import HardwareProfile

    base = load_profile("h200-sxm")
    tiles = W.entries(_synthetic(), FOLDER, "fill", "gap")
    hw = HardwareProfile.model_validate(base.model_dump() | tiles)
    assert pingpong_cpi(hw, 2, 176, 128) == pytest.approx(5.0)
    assert pingpong_cpi(hw, 2, 128, 128) == pytest.approx(4.601, abs=1e-3)
    assert pingpong_cpi(hw, 3, 96, 64) == pytest.approx(6.5)
    # one warpgroup: the tile's own c where wgmma_step_one measured it (decode set 4), else the mean
    assert pingpong_cpi(hw, 1, 64, 256) == pytest.approx(1.7105)
    assert pingpong_cpi(hw, 1, 96, 256) == hw.wgmma_softmax_cycles_per_instr_1_warpgroups.value
    path = tmp_path / "p.yaml"
    path.write_text(W.apply((REPO_ROOT / "hardware_profiles/h200-sxm.yaml").read_text(),
                            _synthetic(), FOLDER, "fill"))  # fmt: skip
    hw = load_profile(str(path))
    assert hw.wgmma_softmax_cycles_per_instr_by_block_n is None
    assert hw.wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile is not None  # not its record's
    assert pingpong_cpi(hw, 2, 176, 128) == pytest.approx(4.601, abs=1e-3)
    with pytest.raises(ValueError, match="tiles must be"):
        W.entries(_synthetic(), FOLDER, "fill", "some")


def test_a_bad_record_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "r.json"
    bad.write_text('{"kind": "x"}')
    assert W.main(["--record", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a wgmma_step record" in err
