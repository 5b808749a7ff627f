"""The packed-GQA held-out set (reports/long_context/pack_gqa): predictions recomputed from
the code against the measured times."""

from __future__ import annotations

import pytest

from gpusim.reporting import pack_gqa
from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.long_context_configs import read_manifest


@pytest.fixture(scope="module")
def measured() -> dict[str, float]:
    return pack_gqa.measured_s()


@pytest.fixture(scope="module")
def predicted() -> dict[str, float]:
    """Every project run predicted now on h200-sxm."""
    configs = read_manifest(pack_gqa.DATA / "manifest_configs.json")
    return {
        c.config_id: predict_one(c, pack_gqa.PROFILE)["runtime_s"]
        for c in configs
        if c.kernel == "project"
    }


def test_the_project_runs_are_predicted_as_reported(predicted, measured):
    kinds = pack_gqa.errors_by_kind(predicted, measured)
    runs = [kinds["project, packed"], kinds["project, unpacked"]]
    assert sum(k["n"] for k in runs) == 12
    mape = sum(k["mape"] * k["n"] for k in runs) / 12
    # reported: 11.7 % (11.2 % before a split run's second kernel was charged the queued
    # launch, reports/long_context/launch2); 12.2 % since the stream-load clock (held-out set
    # 7): this set's project runs were mostly predicted slow, and a lower clock slows them
    assert mape <= 0.1220
    assert max(abs(k["worst"]) for k in runs) <= 0.22  # worst: +21.3 %


def test_packing_is_predicted_faster_in_every_workload(predicted, measured):
    pairs = pack_gqa.speedups(predicted, measured)
    assert len(pairs) == 6
    for cid, (m, p) in pairs.items():
        assert p > 1.3 and m > 1.3, cid
