"""Issue 6's hardware proof, recomputed from the recorded H200 run (skipped until it exists).

The measured file comes from ``python -m gpusim.tuning.proof_measure`` on the GPU; the
predictions file from ``python -m gpusim.tuning.proof_report predict --profile h200-sxm-core``
(the model at a recorded commit).
"""

import pytest

from gpusim.data.layout import TUNING_HELDOUT
from gpusim.tuning import proof
from gpusim.tuning.proof_report import MEASURED, PREDICTED, with_predictions

pytestmark = pytest.mark.skipif(
    not MEASURED.exists(), reason=f"no recorded proof run at {MEASURED}"
)


@pytest.fixture(scope="module")
def record():
    return proof.load(MEASURED)


@pytest.fixture(scope="module")
def figures(record):
    if not PREDICTED.exists():
        pytest.skip(f"no predictions at {PREDICTED}: python -m gpusim.tuning.proof_report predict")
    return proof.evaluate(with_predictions(record, proof.load(PREDICTED)))


def test_record_has_provenance_and_coverage(record):
    prov = record["provenance"]
    for key in ("gpu_name", "date_utc", "git_commit", "cupy_version"):
        assert prov.get(key), key
    ws = [e["workload"] for e in record["workloads"]]
    assert len(ws) >= 8
    assert {w["head_dim"] for w in ws} >= {64, 128}
    assert {w["causal"] for w in ws} == {False, True}
    assert len({w["seq_len_q"] for w in ws}) >= 2


def test_first_choice_within_5_percent_in_7_of_8(figures):
    s = proof.summary(figures)
    assert s["within_5pct"] >= s["workloads"] - s["workloads"] // 8, s


def test_first_choice_within_3_percent_in_all(figures):
    # The second step. Recorded with the SM core model (h200-sxm-core): worst 1.3 %.
    assert all(p.tuner_loss <= 0.03 for p in figures), [p.tuner_loss for p in figures]


def test_rank_correlation_meets_the_target(figures):
    # Recorded: 0.88-0.94.
    assert min(p.spearman for p in figures) >= proof.TARGET_SPEARMAN


def _figures(record, predictions):
    return proof.evaluate(with_predictions(record, proof.load(predictions)))


def test_calibrated_profile_floor(record):
    """The pipe model alone (h200-sxm-calibrated, reports/tuning/calibrated_model/), held
    above a floor: recorded 9 of 10 within 5 %, 7 within 3 %, worst loss 7.0 %, Spearman
    0.66-0.91 (at d128 without masking it ranks 128x128 w8 first, 3.7-7.0 % slower than
    128x32 w4)."""
    figures = _figures(record, PREDICTED.parent / "calibrated_model" / PREDICTED.name)
    s = proof.summary(figures)
    assert s["within_5pct"] >= 9 and s["within_3pct"] >= 7, s
    assert max(p.tuner_loss for p in figures) <= 0.075, [p.tuner_loss for p in figures]
    assert all(p.spearman > 0.64 for p in figures), [p.spearman for p in figures]


HELD_OUT = TUNING_HELDOUT
HELD_OUT_PREDICTIONS = PREDICTED.parent / "heldout"


def test_held_out_workloads():
    """8 workloads fixed before they were measured. The core model (predictions at 7d98960,
    after the block order was corrected; data/h200/2026-11-30_tuning_heldout/README.md):
    8 of 8 within 5 %, 7 within 3 % (B32 H32 N512 d64 causal, 4.1 %), Spearman 0.85-0.94, so
    the issue's targets but 3 % in all; the calibrated profile 6 and 4 of 8, 0.64-0.90."""
    record = proof.load(HELD_OUT / "h200_tuning_heldout.json")
    assert all(c["ok"] for c in record["checks"]) and len(record["checks"]) == 102
    core = proof.summary(_figures(record, HELD_OUT_PREDICTIONS / "predictions_core.json"))
    assert core["workloads"] == 8
    assert core["within_5pct"] >= 8 and core["within_3pct"] >= 7, core
    assert core["min_spearman"] >= proof.TARGET_SPEARMAN, core
    cal = proof.summary(_figures(record, HELD_OUT_PREDICTIONS / "predictions_calibrated.json"))
    assert cal["within_5pct"] >= 6 and cal["min_spearman"] > 0.62, cal
