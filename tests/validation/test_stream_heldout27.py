"""Held-out set 27 (the scoped tile stream's law on new decodes): its manifest, the rule's
verdict, and a sample of its runs recomputed from the code both ways against the H100."""

from __future__ import annotations

import json

import pytest

from gpusim.engine.stream_latency import STREAM
from gpusim.validation.decode_stream_heldout27 import RULE, SEED, heldout27_configs
from tests.validation.heldout_sets import ROOT, stream_run

DATA = ROOT / "data/h100/2026-12-06_decode_stream_heldout27"
MANIFEST = ROOT / "data/h200/2026-12-06_decode_stream_heldout27/manifest_configs.json"
PREDICTIONS = ROOT / "reports/stream_heldout27/predictions.json"
#: (run, error with the law off), as measured 2026-12-06 on an H100: the worst runs, the law
#: on or off within a point of each other
SAMPLE = (
    ("project_gqa_decode_b4h40kv5_q4k26624_c1_m64n128w4s2_sp2_fwd_lf_d64", -0.258),
    ("project_gqa_decode_b8h24kv6_q1k23552_c1_m64n32w4s2_sp4_fwd_lf", 0.191),
)


def test_the_manifest_is_the_module_set_under_its_rule():
    doc = json.loads(MANIFEST.read_text())
    assert SEED == 27 and doc["decision_rule"] == RULE
    assert [c["id"] for c in doc["configs"]] == [c.config_id for c in heldout27_configs()]


def test_the_law_is_not_adopted_here_and_set_28_adopted_it():
    doc = json.loads((ROOT / "reports/stream_heldout27/compare.json").read_text())
    on, off = doc["decision"]["on"], doc["decision"]["off"]
    assert on["mape"] < off["mape"] and 0.07 < on["mape"] < 0.072
    assert not doc["decision"]["adoption_stands"]
    last = json.loads((ROOT / "reports/stream_heldout28/compare.json").read_text())
    assert last["decision"]["adopted"] and STREAM.on


@pytest.mark.parametrize("cid,off_err", SAMPLE)
def test_sampled_runs_recomputed_both_ways(cid, off_err):
    measured, off, on = stream_run(heldout27_configs(), cid, DATA, PREDICTIONS, scope=True)
    assert off / measured - 1 == pytest.approx(off_err, abs=0.005)
    assert abs(on / off - 1) < 0.02
