"""Held-out set 28 (the tile stream's law scoped to what step_stream measured): its manifest,
its decision, and a sample of its runs recomputed from the code with the law off and on against
the H100."""

from __future__ import annotations

import json

import pytest

from gpusim.engine.stream_latency import STREAM
from gpusim.validation.inference_tuning_heldout28 import RULE, SEED, heldout28_configs
from tests.validation.heldout_sets import ROOT, stream_run

DATA = ROOT / "data/h100/2026-12-06_inference_tuning_heldout28"
MANIFEST = ROOT / "data/h200/2026-12-06_inference_tuning_heldout28/manifest_configs.json"
PREDICTIONS = ROOT / "reports/stream_heldout28/predictions.json"
#: (run, error with the law off, error with it on), as measured 2026-12-06: the set's worst run
#: without the law (one 4 KiB-per-step tile stream on few SMs), its worst with it (a 64 x 128 d64
#: tile alone on its SM: the compute side, which the law does not touch), a split decode
SAMPLE = (
    ("project_decode_b4h28kv28_q1k9216_c1_m64n32w4s2_sp1_fwd_lf_d64", -0.3874, -0.0100),
    ("project_decode_b2h31kv31_q7k45056_c1_m64n128w4s2_sp1_fwd_lf_d64", -0.1812, -0.1798),
    ("project_decode_b2h24kv24_q1k22528_c1_m64n64w4s2_sp4_fwd_lf", -0.0804, -0.0514),
)


def test_the_manifest_is_the_module_set_under_its_rule():
    doc = json.loads(MANIFEST.read_text())
    assert SEED == 28 and doc["decision_rule"] == RULE
    assert [c["id"] for c in doc["configs"]] == [c.config_id for c in heldout28_configs()]
    preds = json.loads(PREDICTIONS.read_text())
    assert set(preds["by_config"]) == {c.config_id for c in heldout28_configs()}
    assert preds["profiles"] == ["h100-sxm5", "h100-sxm5+stream", "h200-sxm", "h200-sxm+stream"]


def test_the_rule_adopted_the_law_and_it_is_on():
    doc = json.loads((ROOT / "reports/stream_heldout28/compare.json").read_text())
    assert "H100" in doc["gpu"] and doc["judged_profile"] == "h100-sxm5"
    on, off = doc["decision"]["on"], doc["decision"]["off"]
    assert on["mape"] <= 0.07 < off["mape"] and abs(on["mean_signed"]) < abs(off["mean_signed"])
    assert doc["decision"]["adopted"] and STREAM.on
    # the law beats the roofline on the same runs by far
    assert doc["roofline"]["mape"] > 5 * on["mape"]


@pytest.mark.parametrize("cid,off_err,on_err", SAMPLE)
def test_sampled_runs_recomputed_both_ways(cid, off_err, on_err):
    measured, off, on = stream_run(heldout28_configs(), cid, DATA, PREDICTIONS, scope=True)
    assert off / measured - 1 == pytest.approx(off_err, abs=0.005)
    assert on / measured - 1 == pytest.approx(on_err, abs=0.005)
