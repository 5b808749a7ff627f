"""Held-out set 22 (SM partitions on an H100, beside set 21): its manifest is the module's set
under its rule and new, and runs recomputed from the code with and without the shared-memory
release against the H100's times (reports/partitions_heldout22)."""

from __future__ import annotations

import json

import pytest

from gpusim.api import simulate
from gpusim.engine.smem_release import following
from gpusim.engine.stream_latency import streaming
from gpusim.validation.partition_configs import partition_configs, read_manifest
from gpusim.validation.partitions_heldout11 import heldout11_configs
from gpusim.validation.partitions_heldout22 import MANIFEST, RULE, heldout22_configs
from gpusim.validation.store import RecordStore
from tests.validation.heldout_sets import ROOT

DATA = ROOT / "data/h100/2026-12-06_partitions_heldout22"
#: the project's decodes (64 x 64 d128) on 8 and 16 SMs, its prefill (128 x 64) on 8, and
#: PyTorch's decode on 32: (error without the release, with it)
SAMPLE = {
    "project_sm8_decode_b12h24_q1k10240_c0_m64n64w4s2_sp1": (0.1416, 0.0641),
    "project_sm16_decode_b12h24_q1k10240_c0_m64n64w4s2_sp1": (0.1436, 0.0684),
    "project_sm8_prefill_b6h8_q1280k1280_c0_m128n64w4s2_sp1": (-0.079, -0.079),
    "torch_sm32_decode_b12h24_q1k10240_c0_m128n64w4s1_sp1": (0.091, 0.091),
}


def test_the_manifest_is_the_module_set_under_its_rule_and_new():
    path = ROOT / MANIFEST
    assert [c.config_id for c in read_manifest(path)] == [c.config_id for c in heldout22_configs()]
    assert json.loads(path.read_text())["decision_rule"] == RULE
    earlier = {c.config_id for c in partition_configs()} | {
        c.config_id for c in heldout11_configs()
    }
    assert not earlier & {c.config_id for c in heldout22_configs()}


def test_runs_recomputed_with_and_without_the_release():
    """Came back on 8-72 SMs: the project's kernel 8.14 % without the release, 5.63 % with it
    (adopted with set 21); PyTorch's 2.46 % either way."""
    prov = json.loads((DATA / "provenance.json").read_text())["provenance"]
    assert "H100" in prov["gpu_name"]
    records = RecordStore(DATA / "sweep.jsonl").records
    configs = {c.config_id: c for c in heldout22_configs()}
    for cid, want in SAMPLE.items():
        c, rec = configs[cid], records[cid]
        assert rec["status"] == "ok" and rec["sm_count_obtained"] == c.sm_count
        err = []
        for on in (False, True):
            with following(on), streaming(False):  # as judged (before set 25)
                t = simulate("flash2", c.workload, c.schedule, "h100-sxm5", sm_count=c.sm_count)
            err.append(t.runtime_s / rec["median_s"] - 1)
        assert err == pytest.approx(list(want), abs=0.002), cid
