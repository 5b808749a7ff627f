"""Issue 6's hardware proof, recomputed from the recorded H200 run (skipped until it exists).

The measured file comes from scripts/tuning_proof.py on the GPU; the predictions file
from ``python -m gpusim.tuning.proof_report predict`` (the model at a recorded commit).
"""

import pytest

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


def test_first_choice_floor(figures):
    # A floor, so a regression shows. Recorded with the calibrated profile against the run
    # of the nvcc-built binaries (h200_2026-11-30_nvcc): 9 of 10 within 5 % (7 within 3 %),
    # worst loss 7.0 %. At d128 without causal masking the model still ranks 128x128 w8
    # first, which measures 3.7-7.0 % slower than 128x32 w4.
    s = proof.summary(figures)
    assert s["within_5pct"] >= 9, s
    assert max(p.tuner_loss for p in figures) <= 0.075, [p.tuner_loss for p in figures]


_MISSED_3 = (
    "not met: 7 of 10 within 3 %; at d128 without causal masking the model ranks "
    "128x128 w8 first, 3.7-7.0 % slower than 128x32 w4 (reports/tuning/h200_tuning_proof.md)"
)


def test_first_choice_within_5_percent_in_7_of_8(figures):
    s = proof.summary(figures)
    assert s["within_5pct"] >= s["workloads"] - s["workloads"] // 8, s


@pytest.mark.xfail(strict=True, reason=_MISSED_3)
def test_first_choice_within_3_percent_in_all(figures):
    # The second step.
    assert all(p.tuner_loss <= 0.03 for p in figures), [p.tuner_loss for p in figures]


def test_rank_correlation_floor(figures):
    # A floor under the target below (recorded: 0.69 at worst), so a regression shows.
    assert all(p.spearman > 0.67 for p in figures), [p.spearman for p in figures]


@pytest.mark.xfail(
    strict=True,
    reason="not met yet: Spearman 0.69-0.91 per workload, 6 of 10 at 0.8 or more "
    "(reports/tuning/h200_tuning_proof.md); the causal workloads but d128 N1024 are below",
)
def test_rank_correlation_meets_the_target(figures):
    assert min(p.spearman for p in figures) >= proof.TARGET_SPEARMAN


def test_core_model_floor(record):
    """The opt-in SM core model's predictions (reports/tuning/core_model/), held above a floor:
    recorded 9 of 10 within 5 %, 7 within 3 %, Spearman 0.72 at worst (5 of 10 within 5 %
    before the engine compared its cycles with a steady traced step)."""
    core = PREDICTED.parent / "core_model" / "h200_tuning_predictions.json"
    figures = proof.evaluate(with_predictions(record, proof.load(core)))
    s = proof.summary(figures)
    assert s["within_5pct"] >= 9 and s["within_3pct"] >= 7, s
    assert all(p.spearman > 0.70 for p in figures), [p.spearman for p in figures]
