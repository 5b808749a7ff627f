"""cta_phase's record read back: co-resident groups, the offsets' effect, the profile field it
gives, and the SM core model's replay of one of its loops beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate import cta_phase, cta_phase_check
from gpusim.engine.core_model import CoreTiming
from gpusim.profiles.loader import load_profile

RECORDED = Path(__file__).resolve().parents[2] / "data/h200/2026-12-05_calibration_cta_phase"
DOC = json.loads((RECORDED / "cta_phase.json").read_text())


def test_a_group_whose_last_cta_waited_for_room_is_left_out():
    groups = cta_phase.groups(DOC)
    assert ("cta_phase<32,0,0,1>", 2) in groups
    assert ("cta_phase<32,0,0,1>", 4) not in groups  # 152 registers: three fit an SM
    assert len(groups) == 16


def test_the_steady_step_does_not_move_with_the_entry_offset():
    """README: 0.00-0.01 % in 15 groups, 0.96 % in one."""
    s = sorted(cta_phase.spreads(DOC).values())
    assert s[-1] == pytest.approx(0.0096, abs=5e-4)
    assert s[-2] < 2e-4
    assert cta_phase.co_resident_phases(DOC) == 1


def test_a_record_where_the_offset_matters_gives_no_phase_fact():
    doc = json.loads(json.dumps(DOC))
    row = next(r for r in doc["rows"] if r["ctas_per_sm"] == 2 and r["fraction"] == 0.5)
    row["cycles_per_iteration"] *= 1.05
    with pytest.raises(ValueError, match="keep their entry offsets"):
        cta_phase.co_resident_phases(doc)


def test_apply_writes_the_field_into_the_core_cycles_and_names_the_record():
    core = (RECORDED.parents[2] / "hardware_profiles/h200-sxm-core.yaml").read_text()
    text = cta_phase.apply(core, DOC, "REC")
    assert "co_resident_phases: 1" in text and "# co-resident CTAs' phase: REC" in text
    with pytest.raises(ValueError, match="no sass_core_cycles"):
        cta_phase.apply("name: x\n", DOC, "REC")


def test_the_replay_keeps_the_offset_the_sm_does_not():
    """One loop, two CTAs: the SM's step is one number at every offset; the replay's moves
    with the offset, and in one phase it is within 3 % of the SM (README: -1.7 %)."""
    loops = json.loads((RECORDED / "loop_paths_sm90.json").read_text())["loops"]
    one = {"rows": [r for r in DOC["rows"] if r["nld"] == 0 and r["nmma_reg"] == 64
                    and r["ctas_per_sm"] == 2], "threads": DOC["threads"]}  # fmt: skip
    timing = CoreTiming.from_profile(load_profile("h200-sxm-core"))
    table = cta_phase_check.rows(one, loops, timing)
    (s,) = cta_phase_check.spreads(table)
    assert s["measured_spread"] < 1e-3 and s["replay_spread"] > 0.03
    assert all(abs(t["aligned"] / t["measured"] - 1) < 0.03 for t in table)
    assert all(t["averaged"] / t["measured"] - 1 < -0.05 for t in table)
