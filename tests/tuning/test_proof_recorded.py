"""Issue 6's hardware proof: the recorded H200 runs judged by the current model.

The measured files (data/h200/) come from ``python -m gpusim.tuning.proof_measure`` on the
GPU; the committed predictions (reports/tuning/, ``python -m gpusim.tuning.proof_report
predict``, minutes) are what the
README's tables are generated from. Here one workload of each table is predicted again:
the tuner's runtimes must be the committed ones (a model change without the predictions
made again fails), and its figures must stay within what the README quotes. The sampled
workloads are non-causal (about 3 s each on one core; a causal one takes minutes) and
carry a table's extreme: its lowest Spearman or its worst loss.
"""

from __future__ import annotations

import pytest

from gpusim.data.layout import TUNING_HELDOUT
from gpusim.profiles.loader import canonical_profile_name, load_profile
from gpusim.schedule import Schedule
from gpusim.tuning import proof
from gpusim.tuning.proof_report import MEASURED, PREDICTED

pytestmark = pytest.mark.skipif(
    not MEASURED.exists(), reason=f"no recorded proof run at {MEASURED}"
)

HELD_OUT = PREDICTED.parent / "heldout"
HELD_OUT_RECORD = TUNING_HELDOUT / "h200_tuning_heldout.json"

#: (measured file, committed predictions, profile, workload index, the README's worst loss
#: and lowest Spearman of that table at the precision it quotes them).
CASES = {
    # README: 10 of 10 within 3 % (worst 1.3 %), Spearman 0.88-0.94. B16 H16 N1024 d128:
    # the lowest Spearman (0.878; 0.872 after held-out set 8, 0.859 since set 9).
    "proof-core": (MEASURED, PREDICTED, "h200-sxm-core", 4, 0.0135, 0.855),
    # reports/tuning/calibrated_model: 9 of 10 within 5 %, 7 within 3 %, worst loss 7.0 %,
    # Spearman 0.70-0.91; at d128 without masking it ranks 128x128 w8 first: the worst loss.
    "proof-calibrated": (
        MEASURED,
        PREDICTED.parent / "calibrated_model" / PREDICTED.name,
        "h200-sxm",
        4,
        0.0705,
        0.655,
    ),
    # Held-out README: 8 of 8 within 5 %, 7 within 3 % (worst 4.1 %), Spearman 0.85-0.94;
    # since the stream-load clock (held-out set 7): 8 within 3 % (worst 1.3 %), Spearman
    # 0.83-0.95. B32 H16 N512 d128: the lowest Spearman (0.830; 0.851 before).
    "held-out-core": (
        HELD_OUT_RECORD,
        HELD_OUT / "predictions_core.json",
        "h200-sxm-core",
        6,
        0.0415,
        0.825,
    ),
    # Held-out README: 7 of 8 within 5 %, Spearman 0.61-0.90, worst loss 6.5 %: this one
    # (6.9 % since held-out set 9: 4.8 % after the stream-load clock, 4.4 % after set 8;
    # 8.2 % since held-out sets 21-22's shared-memory release, the table then 5 of 8 within
    # 5 %, 3 within 3 %, Spearman 0.66-0.87, worst 8.9 %).
    "held-out-calibrated": (
        HELD_OUT_RECORD,
        HELD_OUT / "predictions_calibrated.json",
        "h200-sxm",
        6,
        0.0825,
        0.635,
    ),
}


def test_record_has_provenance_and_coverage():
    record = proof.load(MEASURED)
    prov = record["provenance"]
    for key in ("gpu_name", "date_utc", "git_commit", "cupy_version"):
        assert prov.get(key), key
    ws = [e["workload"] for e in record["workloads"]]
    assert len(ws) >= 8
    assert {w["head_dim"] for w in ws} >= {64, 128}
    assert {w["causal"] for w in ws} == {False, True}
    assert len({w["seq_len_q"] for w in ws}) >= 2


def test_held_out_instances_were_checked_against_a_reference():
    record = proof.load(HELD_OUT_RECORD)
    assert len(record["workloads"]) == 8
    assert all(c["ok"] for c in record["checks"]) and len(record["checks"]) == 102


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_workload_predicted_again(case):
    measured, committed, profile_name, index, worst_loss, lowest_spearman = CASES[case]
    entry = proof.load(measured)["workloads"][index]
    model = proof.model_predictor(load_profile(profile_name))
    predicted: dict[Schedule, float | None] = {}

    def predict(w, schedules):
        out = list(model(w, schedules))
        predicted.update(zip(schedules, out, strict=True))
        return out

    figures = proof.evaluate_workload(entry, predict)
    assert figures.tuner_loss <= worst_loss
    assert figures.spearman >= lowest_spearman
    if profile_name == "h200-sxm-core":
        assert figures.spearman >= proof.TARGET_SPEARMAN
    # The committed predictions of this workload are the ones made here.
    doc = proof.load(committed)
    assert canonical_profile_name(doc["profile"]) == profile_name
    (rows,) = [e["schedules"] for e in doc["workloads"] if e["workload"] == entry["workload"]]
    want = {Schedule.from_record(r["schedule"]): r["predicted_s"] for r in rows}
    assert set(want) == set(predicted)
    for s, t in predicted.items():
        if t is None:  # the tuner rejects it
            assert want[s] is None, s
        else:
            assert t == pytest.approx(want[s], rel=1e-9), s
