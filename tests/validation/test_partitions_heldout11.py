"""Held-out set 11 (SM partitions of new workloads): its manifest is the module's with its
rule and shares no run with the 2026-12-02 partition set, and a sample of its runs on 8-72
SMs is predicted afresh on both H200 profiles and held against the measured times
(data/h200/2026-12-04_partitions_heldout11)."""

from __future__ import annotations

import json
import statistics

import pytest

from gpusim.api import simulate
from gpusim.validation.partition_configs import read_manifest
from gpusim.validation.partitions_device import MANIFEST as FIRST_SET
from gpusim.validation.partitions_heldout11 import RULE, heldout11_configs
from gpusim.validation.store import RecordStore
from tests.validation.heldout_sets import H200

FOLDER = H200 / "2026-12-04_partitions_heldout11"
#: the project's decode (predicted slow by the pipe model's 64 x 64 step) and prefill, and
#: PyTorch's decode, on three partition sizes
SAMPLE = (
    "project_sm8_decode_b32h16_q1k4096_c1_m64n64w4s2_sp1",
    "project_sm16_prefill_b4h8_q1536k1536_c0_m128n64w4s2_sp1",
    "project_sm32_decode_b8h32_q1k16384_c0_m64n64w4s2_sp1",
    "torch_sm16_decode_b32h16_q1k4096_c1_m128n64w4s1_sp1",
)


def test_manifest_is_the_module_set_with_its_rule_and_new():
    path = FOLDER / "manifest_configs.json"
    configs = heldout11_configs()
    assert [c.config_id for c in read_manifest(path)] == [c.config_id for c in configs]
    assert json.loads(path.read_text())["decision_rule"] == RULE
    first = {c.config_id for c in read_manifest(FIRST_SET)}
    assert not first & {c.config_id for c in configs}


@pytest.fixture(scope="module")
def errors() -> dict[str, dict[str, float]]:
    configs = {c.config_id: c for c in read_manifest(FOLDER / "manifest_configs.json")}
    records = RecordStore(FOLDER / "sweep.jsonl").records
    from gpusim.engine.smem_release import following

    out: dict[str, dict[str, float]] = {}
    # h200-sxm as the set judged it, the core profile, and h200-sxm as it is now (held-out sets
    # 21-22 adopted the shared-memory release)
    for key, profile, on in (("h200-sxm", "h200-sxm", False), ("h200-sxm-core", "h200-sxm-core",
                             False), ("h200-sxm now", "h200-sxm", True)):  # fmt: skip
        out[key] = {}
        for cid in SAMPLE:
            c, rec = configs[cid], records[cid]
            assert rec["status"] == "ok" and rec["sm_count_obtained"] == c.sm_count
            with following(on):
                t = simulate("flash2", c.workload, c.schedule, profile, sm_count=c.sm_count)
            out[key][cid] = t.runtime_s / rec["median_s"] - 1
    return out


def test_default_profile_recomputed(errors):
    """Measured 2026-12-04: +11.5, -8.1, +13.8, -1.1 % (the project's decode 11-14 % slow,
    as on the whole set: project 9.1 %, the 7 % target missed; PyTorch 2.8 %)."""
    e = errors["h200-sxm"]
    assert 0.10 < e[SAMPLE[0]] < 0.13 and 0.12 < e[SAMPLE[2]] < 0.15
    assert -0.10 < e[SAMPLE[1]] < -0.06 and abs(e[SAMPLE[3]]) < 0.03


def test_the_default_profile_now_takes_the_decodes_slowness_out(errors):
    """Since held-out sets 21-22 adopted the shared-memory release, the two project decodes
    sampled (64 x 64 d128 at two CTAs per SM) come within 7 % (+4.1 %, +6.4 %; they were +11.5 and
    +13.8 %); the prefill and PyTorch's run
    do not move (tensor-bound steps, 32 query rows a warp)."""
    e, before = errors["h200-sxm now"], errors["h200-sxm"]
    assert abs(e[SAMPLE[0]]) < 0.05 and abs(e[SAMPLE[2]]) < 0.07
    assert e[SAMPLE[1]] == pytest.approx(before[SAMPLE[1]], abs=0.005)
    assert e[SAMPLE[3]] == pytest.approx(before[SAMPLE[3]], abs=0.005)


def test_core_profile_recomputed(errors):
    """Measured 2026-12-04: the core model within 6 % on the project's runs sampled (the
    whole set: project 3.1 %)."""
    e = errors["h200-sxm-core"]
    assert statistics.fmean(abs(e[c]) for c in SAMPLE[:3]) < 0.05
    assert all(abs(e[c]) < 0.06 for c in SAMPLE[:3])
