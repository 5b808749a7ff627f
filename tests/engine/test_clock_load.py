"""The SM clock follows the load: tensor-core kernels at the clock under an attention step's load
(or under HMMA load where that one is not measured), others at the base clock."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.engine.rates import rates_for
from gpusim.profiles import load_profile
from gpusim.profiles.schema import Sourced
from gpusim.schedule import Schedule
from gpusim.workload import Workload


@pytest.fixture(scope="module")
def calibrated():
    return load_profile("h200-sxm")


def test_the_calibrated_profile_has_the_three_measured_clocks(calibrated):
    assert calibrated.sm_clock_hz.value == pytest.approx(1.979e9, rel=1e-3)
    assert calibrated.sm_clock_tensor_load_hz.value == pytest.approx(1.814e9, rel=1e-3)
    # load_clock (2026-12-04): products, softmax and L2 streaming at the power cap
    assert calibrated.sm_clock_stream_load_hz.value == pytest.approx(1.792e9, rel=1e-3)


def test_tensor_kernels_run_at_the_loaded_clock_and_others_at_the_base_clock(calibrated):
    r = rates_for(calibrated, "bf16")
    tc, simt = r.for_kernel(True), r.for_kernel(False)
    assert tc.clock_hz == calibrated.sm_clock_stream_load_hz.value
    assert simt.clock_hz == calibrated.sm_clock_hz.value
    ratio = simt.clock_hz / tc.clock_hz
    for pipe, rate in tc.pipe_per_s.items():
        assert simt.pipe_per_s[pipe] == pytest.approx(rate * ratio)
    assert simt.barrier_ticks < tc.barrier_ticks
    # fp32 storage never uses the tensor pipe.
    assert rates_for(calibrated, "fp32").for_kernel(True).clock_hz == calibrated.sm_clock_hz.value


def test_without_the_stream_load_clock_tensor_kernels_run_at_the_tensor_load_clock(calibrated):
    products_only = calibrated.model_copy(update={"sm_clock_stream_load_hz": None})
    tc = rates_for(products_only, "bf16").for_kernel(True)
    assert tc.clock_hz == calibrated.sm_clock_tensor_load_hz.value


def test_a_profile_without_the_field_keeps_one_clock(h200):
    assert h200.sm_clock_tensor_load_hz is None
    r = rates_for(h200, "fp16")
    assert r.for_kernel(True).clock_hz == r.for_kernel(False).clock_hz == h200.sm_clock_hz.value


def test_the_standard_softmax_kernel_runs_faster_at_the_base_clock(calibrated):
    w = Workload(batch=1, heads=4, seq_len_q=1024, seq_len_k=1024, head_dim=64, dtype="fp16")
    s = Schedule(block_m=128, block_n=128, warps=4, stages=2)
    base = Sourced[float](value=calibrated.sm_clock_hz.value, source="test")
    one_clock = calibrated.model_copy(
        update={"sm_clock_tensor_load_hz": base, "sm_clock_stream_load_hz": base}
    )
    split = {k.name: k.duration_s for k in simulate("standard", w, s, calibrated).kernels}
    same = {k.name: k.duration_s for k in simulate("standard", w, s, one_clock).kernels}
    assert split["softmax_row"] == pytest.approx(same["softmax_row"], rel=1e-6)
    assert split["scores"] > same["scores"]  # the products run at the lower, loaded clock


def test_each_kernel_says_the_clock_it_ran_at(calibrated):
    w = Workload(batch=1, heads=4, seq_len_q=1024, seq_len_k=1024, head_dim=64, dtype="fp16")
    s = Schedule(block_m=128, block_n=128, warps=4, stages=2)
    clocks = {k.name: k.sm_clock_hz for k in simulate("standard", w, s, calibrated).kernels}
    assert clocks["scores"] == clocks["pv"] == calibrated.sm_clock_stream_load_hz.value
    assert clocks["softmax_row"] == calibrated.sm_clock_hz.value
