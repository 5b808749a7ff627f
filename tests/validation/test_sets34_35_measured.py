"""Held-out sets 34 and 35 measured on an H100 (2026-12-07): sampled runs recomputed from the
code on the judged profile and on the CTA-grouping candidates, and both comparisons recomputed
from the committed predictions byte for byte with their verdicts: the grouping table (full or
partial) is rejected, and issue 19's tuner target is missed on every profile."""

from __future__ import annotations

import json

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.reporting import grouping_set35, tuner_set34
from gpusim.reporting.profile_sets import predict_on
from gpusim.validation import long_context_sweep
from gpusim.validation.grouping_heldout35 import heldout35_configs
from gpusim.validation.tuner_heldout34 import heldout34_configs
from tests.validation.heldout_sets import ROOT

S34 = "data/h100/2026-12-07_tuner_heldout34"
S35 = "data/h100/2026-12-07_grouping_heldout35"
RECORD = ROOT / "data/h100/2026-12-07_cta_grouping/cta-grouping.json"
#: (set, run): each set's worst
#: run on the judged profile, measured 2026-12-07
SAMPLE = (
    (34, "project_prefill_b4h3kv3_q2704k6144_c0_m64n32w4s3_sp1_fwd_lf"),
    (35, "project_prefill_b1h18kv18_q2004k12288_c1_m64n32w4s3_sp1_fwd_lf"),
)


def _errors(set_id: int, cid: str) -> list[float]:
    configs = heldout34_configs() if set_id == 34 else heldout35_configs()
    data = ROOT / (S34 if set_id == 34 else S35)
    config = {c.config_id: c for c in configs}[cid]
    measured = {r["id"]: r["median_s"] for r in long_context_sweep.records(data)}[cid]
    base = load_profile("h100-sxm5")
    record = json.loads(RECORD.read_text())
    profiles = {"base": base,
                "full": grouping_set35.with_record("h100-sxm5", record, str(RECORD)),
                "partial": grouping_set35.partial_profile(base)}  # fmt: skip
    row = predict_on([config], profiles)[cid]
    return [row[n]["runtime_s"] / measured - 1 for n in profiles]


@pytest.mark.parametrize("set_id,cid", SAMPLE)
def test_the_worst_runs_recomputed_and_the_tables_only_partly_mend_them(set_id, cid):
    base, full, partial = _errors(set_id, cid)
    assert base > 0.20  # 64 x 32 four-warp tiles predicted 23-26 % slow
    assert 0.15 < full < base and 0.15 < partial < base  # 15-18 % with either table


def test_set_34_comparison_and_targets(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "compare.json"
    assert tuner_set34.main(["compare", "--measured", S34, "--out", str(out)]) == 0
    assert out.read_text() == (ROOT / "reports/tuner_heldout34/compare.json").read_text()
    prof = json.loads(out.read_text())["profiles"]
    assert not any(p["targets"]["tuner"] for p in prof.values())
    assert prof["h100-sxm5"]["runtime"]["mape"] < prof["h100-sxm5+partial"]["runtime"]["mape"]
    assert prof["h100-sxm5-core"]["targets"]["runtime"]


def test_set_35_comparison_and_its_rule(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "compare.json"
    assert grouping_set35.main(["compare", "--measured", S35, "--out", str(out)]) == 0
    assert out.read_text() == (ROOT / "reports/grouping_heldout35/compare.json").read_text()
    doc = json.loads(out.read_text())
    assert doc["decision"] == {"h100-sxm5": False}
    prof = doc["profiles"]
    base = prof["h100-sxm5"]["runtime"]["mape"]
    assert prof["h100-sxm5+grouping"]["runtime"]["mape"] > base
    assert prof["h100-sxm5-core"]["runtime"]["mape"] < 0.7 * base
