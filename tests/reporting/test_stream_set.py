"""The stream sets' comparisons (:mod:`gpusim.reporting.stream_set`): recomputed from the
measured runs and the committed predictions, they are the committed reports byte for byte, and
their constant-efficiency baseline comes from an earlier set, never from the judged one."""

from __future__ import annotations

import json

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.reporting import stream_set
from tests.validation.heldout_sets import ROOT

#: (command suffix, report folder, measured folder under data/h100)
REPORTS = (
    ("", "stream_heldout25", "2026-12-06_inference_tuning_heldout25"),
    ("26", "stream_heldout26", "2026-12-06_decode_stream_heldout26"),
    ("27", "stream_heldout27", "2026-12-06_decode_stream_heldout27"),
    ("28", "stream_heldout28", "2026-12-06_inference_tuning_heldout28"),
)


@pytest.mark.parametrize("suffix,report,measured", REPORTS)
def test_each_comparison_recomputes_to_the_committed_report(
    tmp_path, monkeypatch, suffix, report, measured
):
    monkeypatch.chdir(ROOT)  # the reports name their measured folder as the README's command does
    out = tmp_path / "compare.json"
    rc = stream_set.main([f"compare{suffix}", "--measured", f"data/h100/{measured}",
                          "--predictions", f"reports/{report}/predictions.json",
                          "--out", str(out)])  # fmt: skip
    assert rc == 0
    assert out.read_text() == (ROOT / "reports" / report / "compare.json").read_text()


def test_the_constant_efficiency_comes_from_set_23_not_the_judged_sets():
    eff = stream_set.constant_efficiency("h100-sxm5", load_profile("h100-sxm5"))
    assert eff["from"].endswith("inference_tuning_heldout23") and eff["from_runs"] >= 40
    assert 0.3 < eff["efficiency"] < 1.0


def test_the_model_beats_both_baselines_on_set_28():
    doc = json.loads((ROOT / "reports/stream_heldout28/compare.json").read_text())
    on = doc["decision"]["on"]["mape"]
    assert doc["constant_efficiency"]["mape"] > 3 * on and doc["roofline"]["mape"] > 3 * on
