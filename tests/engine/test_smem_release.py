"""The shared-memory release (gpusim/engine/smem_release.py): what a products phase holds the
schedulers for, where the share comes from, and that the model without it is one call away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.calibrate.smem_overlap import RELEASE_FIELD, release_entry
from gpusim.engine.smem_release import RELEASE, following, phase_span, release_share
from gpusim.profiles import load_profile

ROOT = Path(__file__).resolve().parents[2]
H200_RECORD = ROOT / "data/h200/2026-11-30_calibration_smem_overlap/smem-overlap-h200.json"
H100_RESULTS = ROOT / "data/h100/2026-12-05_calibration/suite/cal/h100-sxm5-measured.results.json"


def test_only_the_shared_memory_excess_over_the_tensor_time_is_shared():
    assert phase_span({"tensor": 100.0, "smem": 160.0}, 0.5) == pytest.approx(130.0)
    assert phase_span({"tensor": 100.0, "smem": 80.0}, 0.5) == 100.0  # tensor-bound: all of it
    assert phase_span({"fp32": 50.0, "sfu": 70.0, "issue": 60.0}, 0.5) == 70.0  # the softmax
    assert phase_span({"tensor": 100.0, "smem": 160.0}, 0.0) == 160.0


def test_the_share_is_the_microbenchmarks_on_both_cards():
    h200 = release_entry(json.loads(H200_RECORD.read_text()))
    doc = json.loads(H100_RESULTS.read_text())
    h100 = release_entry(doc["benchmarks"]["smem_overlap"]["record"])
    assert h200["value"] == 0.369 and h100["value"] == 0.37
    for name in ("h200-sxm", "h200-sxm-core", "h100-sxm5"):
        assert getattr(load_profile(name), RELEASE_FIELD).value == h200["value"]
    assert load_profile("h100-sxm5-measured").smem_sched_release_share.value == h100["value"]


def test_on_by_default_and_off_in_one_call():
    p = load_profile("h200-sxm")
    assert RELEASE.on and release_share(p) == 0.369
    with following(False):
        assert release_share(p) == 0.0
    assert release_share(p.model_copy(update={RELEASE_FIELD: None})) == 0.0


def test_a_lone_cta_and_a_tensor_bound_tile_do_not_move_and_two_small_tiles_do():
    from gpusim.api import simulate
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

    def both(w, s):
        with following(False):
            before = simulate("flash2", w, s, "h200-sxm").runtime_s
        return before, simulate("flash2", w, s, "h200-sxm").runtime_s

    # 64 x 64 d128, two CTAs per SM, its products waiting on ldmatrix: faster
    before, now = both(Workload(batch=2, heads=16, seq_len_q=2048, seq_len_k=2048),
                       Schedule(block_m=64, block_n=64, warps=4, stages=2))  # fmt: skip
    assert 0.85 < now / before < 0.97
    # 128 x 64 d128: 32 query rows a warp, the tensor pipe the busier: unchanged
    before, now = both(Workload(batch=2, heads=16, seq_len_q=2048, seq_len_k=2048),
                       Schedule(block_m=128, block_n=64, warps=4, stages=2))  # fmt: skip
    assert now == pytest.approx(before, rel=1e-9)
