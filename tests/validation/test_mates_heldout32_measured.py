"""Held-out set 32 measured on an H100: sampled runs recomputed from the code on both H100
profiles, without and with the mate_gap record's SM-mate ratio, against the measured times (the
set's finding: the ratio fixes the masked partial waves of the 128 x 64 tile and overshoots
those of 128 x 32), and the comparison recomputed from the committed predictions byte for byte
with the rule's decision (rejected on both profiles)."""

from __future__ import annotations

import json

import pytest

from gpusim.validation.mates_heldout32 import heldout32_configs
from tests.validation.heldout_sets import ROOT, mates_errors

DATA = ROOT / "data/h100/2026-12-06_mates_heldout32"
RECORD = "data/h100/2026-12-06_mate_gap/mate_gap.json"
#: (run, errors on h100-sxm5, with the ratio, h100-sxm5-core, with the ratio), measured
#: 2026-12-06 on an H100: masked grids at 1.30 and 1.36 waves of two CTAs per SM
SAMPLE = (
    ("project_prefill_b2h19kv19_q1143k13312_c1_m128n64w4s2_sp1_fwd_lf",
     (0.121, -0.071, 0.148, -0.020)),
    ("project_prefill_b2h19kv19_q1143k13312_c1_m64n64w4s2_sp1_fwd_lf",
     (0.089, 0.086, 0.012, 0.015)),
    ("project_prefill_b1h60kv60_q718k11264_c1_m128n32w4s2_sp1_fwd_lf",
     (0.147, -0.060, -0.037, -0.237)),
)  # fmt: skip


def test_the_records_ratios_are_the_microbenchmarks():
    from gpusim.calibrate.mate_gap import ratios

    got = ratios(json.loads((ROOT / RECORD).read_text()))
    (r16, q16), (r32, q32) = got["2"]
    assert (r16, r32) == (16.0, 32.0)
    assert q16 == pytest.approx(1.009, abs=0.002) and q32 == pytest.approx(1.466, abs=0.005)


@pytest.mark.parametrize("cid,errs", SAMPLE)
def test_sampled_runs_recomputed_against_the_h100(cid, errs):
    config = {c.config_id: c for c in heldout32_configs()}[cid]
    assert mates_errors(config, DATA, RECORD) == pytest.approx(errs, abs=0.005)


def test_the_comparison_and_the_rule(tmp_path, monkeypatch):
    from gpusim.reporting import mates_set

    monkeypatch.chdir(ROOT)  # the report names its measured folder as the README's command does
    out = tmp_path / "compare.json"
    assert mates_set.main(["compare", "--measured", str(DATA.relative_to(ROOT)),
                           "--out", str(out)]) == 0  # fmt: skip
    assert out.read_text() == (ROOT / "reports/mates_heldout32/compare.json").read_text()
    doc = json.loads(out.read_text())
    assert doc["decision"] == {"h100-sxm5": False, "h100-sxm5-core": False}
    prof = doc["profiles"]
    pipe, cand = prof["h100-sxm5"], prof["h100-sxm5+mates"]
    # lower MAPE, but three first choices lost: rejected
    assert cand["runtime"]["mape"] < pipe["runtime"]["mape"] - 0.005
    assert cand["verdict"]["first_choice_within_3pct"] < pipe["verdict"]["first_choice_within_3pct"]
    core, core_cand = prof["h100-sxm5-core"], prof["h100-sxm5-core+mates"]
    assert core_cand["runtime"]["mape"] > core["runtime"]["mape"]
    assert doc["roofline"]["mape"] > 5 * pipe["runtime"]["mape"]
