"""The held-out shapes set: fixed as committed, and a sample predicted afresh from the code
and held to the errors reports/heldout_shapes/README.md reports (no committed prediction is
compared here: the model runs). About 14 s: nine simulations, the least that covers each
kernel, head dim and both instruction counts."""

from __future__ import annotations

import json
import statistics

import pytest

from gpusim.data.layout import DATA_DIR
from gpusim.profiles.loader import load_profile
from gpusim.validation.heldout_shapes import (
    compiled_record,
    configs_from_manifest,
    heldout_configs,
)
from gpusim.validation.predicted_vs_measured import compare_record

FOLDER = DATA_DIR / "h200" / "2026-12-02_heldout_shapes"
#: One of each kind, small enough to simulate in a second or two: mma.sync d32, d64, d128
#: causal, d256 with Nq != Nk, and two fp32 FFMA runs.
SAMPLE = (
    "flash2_bf16_d32_n1536_c0_b16h16_m64n64w4s3",
    "flash2_bf16_d64_n768_c0_b24h16_m128n32w4s3",
    "flash2_bf16_d128_n1280_c1_b12h10_m64n64w4s3",
    "flash2_bf16_d256_n512k2048_c1_b8h8_m64n32w4s2",
    "flash2_fp32_d64_n1000_c0_b8h8_m64n32w4s1",
    "flash2_fp32_d64_n1536_c0_b4h16_m64n64w8s2",
)
#: The set's figures (31 runs, h200-sxm-calibrated, reports/heldout_shapes/README.md): worst
#: |error| and MAPE of the default counts (the fit: 27.1 %, 7.32 % recomputed after held-out
#: set 8; 27.0 %, 7.52 % judged) and of the formulas (23.0 %, 7.67 %; 22.9 %, 8.01 % judged).
#: The formulas' three-run sample is above the set's MAPE since set 8 (8.22 %; 8.34 % since
#: held-out set 9: its d64 N768 run -12.2 %, d256 +11.9 %): held to that, at the precision
#: of the recompute.
REPORTED = {None: (0.2715, 0.0752), "formulas": (0.2305, 0.0840)}
#: The formulas on three of the sample (d64, d256 with Nq != Nk, fp32): each run costs ~1.5 s.
FORMULAS_SAMPLE = SAMPLE[1], SAMPLE[3], SAMPLE[4]


def test_the_set_is_the_committed_manifest():
    assert configs_from_manifest(FOLDER / "manifest_configs.json") == heldout_configs()
    ids = [c.config_id for c in heldout_configs()]
    assert len(set(ids)) == len(ids) == 31


@pytest.fixture(scope="module")
def measured() -> dict:
    data = json.loads((FOLDER / "h200-dataset.json").read_text())
    return {r["id"]: r for r in data["records"] if r["status"] == "ok"}


@pytest.mark.parametrize(("counts", "sample"), [(None, SAMPLE), ("formulas", FORMULAS_SAMPLE)])
def test_a_sample_predicted_from_the_code_keeps_the_reported_errors(measured, counts, sample):
    profile = load_profile("h200-sxm-calibrated")
    configs = {c.config_id: c for c in heldout_configs()}
    errs = []
    for cid in sample:
        rec = compiled_record(configs[cid])
        if counts:
            rec["schedule"] = rec["schedule"] | {"instruction_counts": counts}
        row = compare_record(rec, profile)
        m = measured[cid]["median_s"]
        errs.append((row.predicted_s - m) / m)
    worst, mape = REPORTED[counts]
    assert max(abs(e) for e in errs) <= worst
    assert statistics.fmean(abs(e) for e in errs) <= mape
