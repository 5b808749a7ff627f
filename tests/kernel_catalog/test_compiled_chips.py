"""A simulation's registers: ptxas's for the schedule's recorded CUDA instance, else the
estimate, and the result says which."""

from __future__ import annotations

import gpusim
from gpusim.kernel_catalog.compiled_chips import compiled_on_chip
from gpusim.profiles import load_profile

W = gpusim.Workload(batch=1, heads=16, seq_len_q=4096, seq_len_k=4096, head_dim=64,
                    dtype="bf16")  # fmt: skip
S = gpusim.Schedule(block_m=128, block_n=64, warps=4, stages=2)
H200 = load_profile("h200-sxm")


def test_the_recorded_instance_gives_its_registers():
    chips, source = compiled_on_chip("flash2", W, S, H200)
    assert source == "ptxas (tc_bf16_d64_m128_n64_w4_s2)"
    assert chips["flash2_fwd"].regs_per_thread == 221


def test_what_has_no_recorded_instance_keeps_the_estimate():
    assert compiled_on_chip("flash1", W, S, H200) == ({}, "estimate")
    backward = S.model_copy(update={"kv_order": "backward", "q_order": "first-first"})
    assert compiled_on_chip("flash2", W, backward, H200) == ({}, "estimate")
    wgmma = gpusim.Schedule(block_m=128, block_n=64, warps=8, stages=2, mma="wgmma")
    assert compiled_on_chip("flash2", W, wgmma, H200) == ({}, "estimate")


def test_simulate_runs_at_the_compiled_occupancy_and_says_so():
    compiled = gpusim.simulate("flash2", W, S, "h200-sxm")
    estimate = gpusim.simulate("flash2", W, S, "h200-sxm", footprints="estimate")
    # 221 registers x 128 threads: two CTAs per SM; the estimate's 168 allowed three
    assert (compiled.ctas_per_sm, estimate.ctas_per_sm) == (2, 3)
    assert compiled.registers_from.startswith("ptxas") and estimate.registers_from == "estimate"
    assert compiled.to_json_dict()["regs_per_thread"] == 221
