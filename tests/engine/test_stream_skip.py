"""The skip of streaming kernels out of lockstep (stream_skip.py) against every wave simulated."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from algorithms import get_algorithm
from gpusim.engine import simulate
from gpusim.engine.prepare import dram_cost
from gpusim.profiles import load_profile
from gpusim.profiles.schema import HardwareProfile, SourcedCurve
from gpusim.schedule import Schedule
from gpusim.workload import Workload
from tests.engine.conftest import small_gpu


def _calibrated_small(sms: int) -> HardwareProfile:
    """The calibrated H200 (CTA time scatter, L2 loss curve, DRAM cap of few bytes in flight)
    cut to ``sms`` SMs, its L2's loss curve at depths in proportion too: a small grid is many
    waves, and a score matrix of a few MiB is too deep to survive for the row softmax."""
    base = small_gpu(load_profile("h200-sxm"), sms)
    frac = sms / load_profile("h200-sxm").sm_count.value
    curve = base.l2_loss_by_depth
    scaled = [(depth * frac, share) for depth, share in curve.value]
    return base.model_copy(
        update={"l2_loss_by_depth": SourcedCurve(value=scaled, source="test: scaled")}
    )


#: Two SMs per scatter stratum.
CAL8 = _calibrated_small(8)
S = Schedule(block_m=128, block_n=128, warps=4, stages=2)


def _both(w: Workload, profile=CAL8):
    return simulate("standard", w, S, profile), simulate(
        "standard", w, S, profile, extrapolate=False
    )


@pytest.mark.parametrize(
    "heads, seq_len, dtype",
    [(4, 1024, "fp16"), (2, 2048, "fp16"), (8, 512, "bf16")],
)
def test_the_jump_agrees_with_every_wave_simulated(heads, seq_len, dtype):
    w = Workload(batch=1, heads=heads, seq_len_q=seq_len, seq_len_k=seq_len, head_dim=64,
                 dtype=dtype)  # fmt: skip
    skipped, every = _both(w)
    soft = {k.name: k for k in skipped.kernels}["softmax_row"]
    plain = {k.name: k for k in every.kernels}["softmax_row"]
    assert soft.waves_extrapolated > soft.waves / 2  # most of the row softmax was skipped
    assert plain.waves_extrapolated == 0
    assert skipped.events < every.events / 2
    # Counters: the row softmax's are exact, byte for byte (every byte went to DRAM); the
    # other kernels' work too, and their DRAM bytes but for the rounding of a partial loss
    # of a tile in an L2 that is as deep as it would be, not the same line for line.
    for a, b in zip(skipped.kernels, every.kernels, strict=True):
        ca, cb = asdict(a.counters), asdict(b.counters)
        if a.name == "softmax_row":
            assert ca == cb
        for key in ca:
            assert ca[key] == pytest.approx(cb[key], rel=0 if "dram" not in key else 1e-5), key
    # Time: exact for a DRAM busy throughout the skipped stretch (work conservation), but for
    # the CTAs in flight at the jump standing for those in flight after it: at most the time
    # the DRAM takes for a GPU-full of CTAs' bytes.
    kernel = next(k for k in get_algorithm("standard").kernels(w, S) if k.name == "softmax_row")
    slots = soft.ctas_per_sm * CAL8.sm_count.value
    per_cta = (soft.counters.dram_read_bytes + soft.counters.dram_write_bytes) / soft.ctas
    cost = dram_cost(CAL8, kernel, kernel.on_chip().threads * soft.ctas_per_sm)
    in_flight_s = slots * per_cta * cost / CAL8.dram_bandwidth_bytes_per_s.value
    assert abs(soft.duration_s - plain.duration_s) <= in_flight_s
    assert abs(skipped.runtime_s - every.runtime_s) <= in_flight_s


def test_kernels_in_lockstep_or_with_shared_tiles_are_left_alone():
    w = Workload(batch=1, heads=4, seq_len_q=1024, seq_len_k=1024, head_dim=64, dtype="fp16")
    # No scatter (the datasheet profile): the wave skip applies, this one does not.
    lockstep = small_gpu(load_profile("h200-sxm-datasheet"), sms=8)
    a, b = _both(w, lockstep)
    assert a.runtime_s == b.runtime_s and a.events == b.events
    # Flash2's CTAs share K and V tiles: never skipped this way.
    fa = simulate("flash2", w, S, CAL8)
    fb = simulate("flash2", w, S, CAL8, extrapolate=False)
    assert fa.runtime_s == fb.runtime_s and fa.events == fb.events
    assert fa.kernels[0].waves_extrapolated == 0
