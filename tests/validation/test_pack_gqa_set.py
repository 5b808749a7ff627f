"""The packed-GQA held-out set (reports/long_context/pack_gqa): predictions recomputed from
the code against the measured times."""

from __future__ import annotations

import json

import pytest

from gpusim.data.layout import REPO_ROOT
from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.long_context_configs import read_manifest

DATA = REPO_ROOT / "data/h200/2026-12-03_pack_gqa"


@pytest.fixture(scope="module")
def errors() -> dict[str, float]:
    """Signed runtime error of every project run, predicted now on h200-sxm."""
    measured = {}
    for line in (DATA / "sweep.jsonl").read_text().splitlines():
        r = json.loads(line)
        measured[r["id"]] = r["median_s"]
    out = {}
    for c in read_manifest(DATA / "manifest_configs.json"):
        if c.kernel == "project":
            p = predict_one(c, "h200-sxm")
            out[c.config_id] = p["runtime_s"] / measured[c.config_id] - 1
    return out


def test_the_project_runs_are_predicted_as_reported(errors):
    assert len(errors) == 12
    mape = sum(abs(e) for e in errors.values()) / len(errors)
    assert mape <= 0.115  # reported: 11.2 %
    assert max(abs(e) for e in errors.values()) <= 0.22  # worst: +21.3 %


def test_packing_is_predicted_faster_in_every_workload(errors):
    measured = {
        json.loads(x)["id"]: json.loads(x)["median_s"]
        for x in (DATA / "sweep.jsonl").read_text().splitlines()
    }
    for cid in errors:
        if cid.endswith("_pack"):
            plain = cid.removesuffix("_pack")
            predicted_speedup = (
                (1 + errors[plain]) * measured[plain] / ((1 + errors[cid]) * measured[cid])
            )
            measured_speedup = measured[plain] / measured[cid]
            assert predicted_speedup > 1.3 and measured_speedup > 1.3, cid
