"""The tile stream's latency (gpusim.engine.stream_latency): its law and where it applies."""

import pytest

from algorithms import get_algorithm
from gpusim.counting import MAX_TRACED_STEPS
from gpusim.engine.prepare import prepare
from gpusim.engine.rates import rates_for
from gpusim.engine.stream_latency import law_s, streaming
from gpusim.profiles.loader import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def test_the_law_is_the_latency_alone_then_the_dram_queue():
    lat, ingress, power = 0.578e-6, 234e9, 2.85
    alone = law_s(lat, ingress, power, 16384, 1e-9)
    assert alone == pytest.approx(lat + 16384 / ingress, rel=1e-6)
    # on 132 SMs the queue adds to both: more than either part, less than their sum
    queued = 132 * 16384 / 3.214e12
    both = law_s(lat, ingress, power, 16384, queued)
    assert max(alone, queued) < both < alone + queued


def _decode_fill(on: bool) -> tuple[int, int]:
    w = Workload(batch=3, heads=21, seq_len_q=1, seq_len_k=46080, head_dim=128, dtype="bf16",
                 causal=True)  # fmt: skip
    s = Schedule(block_m=64, block_n=32, warps=4, stages=2, kv_splits=2)
    hw = load_profile("h100-sxm5")
    base = rates_for(hw, w.dtype, s.warps, schedule=s, head_dim=w.head_dim)
    kernel = get_algorithm("flash2").kernels(w, s)[0]
    with streaming(on):
        spec = prepare(kernel, hw, base, True, [MAX_TRACED_STEPS]).spec
    return spec.fill_ticks, base.dram_latency_ticks


def test_off_the_fill_is_the_chase_latency_and_on_a_decode_waits_longer():
    off, chase = _decode_fill(False)
    assert off == chase
    on, _ = _decode_fill(True)
    # 126 SMs with one 16-KiB tile in flight each: 0.86 us a step on the H100 (step_stream)
    # against the chase latency's 0.33 us
    assert 2.0 < on / chase < 3.2


def test_the_law_keeps_to_what_step_stream_measured():
    """Since held-out set 26: not the split-KV combine (register loads), not a one-stage K/V
    loop (FlashAttention-2's); each says why in its fill model."""
    w = Workload(batch=1, heads=16, seq_len_q=1, seq_len_k=16384, head_dim=128, dtype="bf16",
                 causal=True)  # fmt: skip
    hw = load_profile("h100-sxm5")
    models = {}
    for stages in (1, 2):
        s = Schedule(block_m=64, block_n=64, warps=4, stages=stages, kv_splits=4)
        base = rates_for(hw, w.dtype, s.warps, schedule=s, head_dim=w.head_dim)
        with streaming(True):
            for k in get_algorithm("flash2").kernels(w, s):
                spec = prepare(k, hw, base, True, [MAX_TRACED_STEPS]).spec
                models[(stages, k.name)] = spec.fill_model
    assert models[(2, "flash2_split")] == "tile-stream law"
    assert models[(1, "flash2_split")].startswith("chase latency (one-stage")
    assert models[(2, "flash2_combine")] == "chase latency (register loads)"
