"""The SM core model: a compiled loop replayed on one SM's schedulers, pipes and scoreboards."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpusim.engine.core_model import (
    NO_BARRIER,
    CoreTiming,
    Instr,
    resident_step_cycles,
    step_cycles,
)
from gpusim.kernel_catalog.loop_counts import loop_counts, loop_path
from gpusim.profiles.loader import load_profile

T = CoreTiming(
    latency={"LDSM": 32.0, "SHFL": 24.0, "MUFU": 17.0},
    pipe_cycles={"tensor": 6.0, "mufu": 8.0, "alu": 2.0, "fma": 1.0, "shfl": 4.0},
    op_cycles={"IMAD": 2.0},
    hmma_result_cycles=29.0,
    hmma_accumulate_cycles=24.0,
    barrier_cycles_4_warps=20.0,
    barrier_cycles_8_warps=28.0,
    smem_bytes_per_cycle=128.0,
    schedulers=4,
)


def ins(op, stall=1, wbar=NO_BARRIER, wait=0, dst=(), src=()):
    return Instr(op, stall, wbar, NO_BARRIER, wait, tuple(dst), tuple(src))


def test_a_lone_warp_waits_the_stall_counts_the_compiler_wrote():
    path = [ins("FMUL", stall=4), ins("FADD", stall=5), ins("BRA", stall=3)]
    assert step_cycles(path, 1, 1, T) == pytest.approx(12)


def test_two_warps_hide_each_others_stalls_until_a_pipe_is_full():
    lat = [ins("FMUL", stall=4)] * 16
    one = step_cycles(lat, 1, 4, T)  # one warp per scheduler
    two = step_cycles(lat, 1, 8, T)  # two: the stalls overlap, the FMA pipe is not full
    assert one == pytest.approx(64) and two == pytest.approx(64, abs=2)
    hmma = [ins("HMMA", stall=1, dst=(4 * i,)) for i in range(16)]  # independent products
    assert step_cycles(hmma, 1, 4, T) == pytest.approx(16 * 6)
    assert step_cycles(hmma, 1, 8, T) == pytest.approx(2 * 16 * 6, abs=2)


def test_the_schedulers_of_the_sm_share_out_its_warps():
    # 8 warps of independent products: on 4 schedulers two share a tensor pipe, on 2 four do.
    hmma = [ins("HMMA", stall=1, dst=(4 * i,)) for i in range(16)]
    two = replace(T, schedulers=2)
    assert step_cycles(hmma, 1, 8, two) == pytest.approx(2 * step_cycles(hmma, 1, 8, T), abs=4)


def test_a_scoreboard_and_an_hmma_result_make_their_readers_wait():
    ldsm = [ins("LDSM", wbar=0, dst=(8,), src=(2,)), ins("FADD", wait=0b1, src=(8,))]
    assert step_cycles(ldsm, 1, 1, T) >= 32
    hmma = [ins("HMMA", dst=(4, 5, 6, 7), src=(4, 5, 6, 7)), ins("FMNMX", src=(5,))]
    assert step_cycles(hmma, 1, 1, T) >= 29
    chain = [ins("HMMA", dst=(4, 5, 6, 7), src=(0, 4, 5, 6, 7))]  # accumulate into itself
    assert step_cycles(chain, 1, 1, T) == pytest.approx(24)


def test_shared_memory_serves_one_sm_wide_queue():
    loads = [ins("LDSM", wbar=0, dst=(8,)), ins("FADD", wait=0b1, src=(8,))]
    # 16 warps, 512 bytes each per trip, 128 bytes per cycle: 64 cycles at least
    assert step_cycles(loads, 4, 4, T) >= 16 * 512 / 128


def test_local_memory_is_timed_as_measured_only_where_the_profile_has_it():
    """A local load (a spill) waits for its scoreboard: 20 cycles as an integer instruction
    without the measured cycles, their latency with them; its accesses queue on the SM's
    L1 data pipe, as shared-memory loads do."""
    path = [ins("LDL", wbar=1, dst=(5,)), ins("FADD", wait=0b10, src=(5,)), ins("BRA")]
    plain = step_cycles(path, 1, 1, T)
    local = replace(T, local_latency=35.0, local_access_cycles=4.0)
    assert step_cycles(path, 1, 1, local) == pytest.approx(plain + 15, abs=1)
    # eight warps, each loading eight words and then using the last: 64 accesses queue on the
    # pipe 4 cycles each before the last result can come
    eight = [ins("LDL", dst=(i,)) for i in range(7)]
    eight += [ins("LDL", wbar=1, dst=(7,)), ins("FADD", wait=0b10, src=(7,)), ins("BRA")]
    assert step_cycles(eight, 2, 4, local) >= 64 * 4 - 8
    assert step_cycles(eight, 2, 4, T) < 64


def test_a_barrier_holds_a_ctas_warps_together():
    path = [ins("BAR"), ins("FADD")]
    assert step_cycles(path, 1, 4, T) == pytest.approx(20 + 1, abs=1)
    # two warps per scheduler also take turns to issue the barrier and what follows it
    assert 28 + 1 <= step_cycles(path, 1, 8, T) <= 28 + 5


def test_a_late_start_does_not_change_a_steady_step():
    path = [ins("LDSM", wbar=0, dst=(8,)), ins("HMMA", wait=0b1, dst=(4,), src=(8,)),
            ins("MUFU", stall=2), ins("BAR")]  # fmt: skip
    alone = step_cycles(path, 1, 4, T)
    assert step_cycles(path, 1, 4, T, start_cycles=(137.0,)) == pytest.approx(alone)


def test_co_resident_ctas_are_averaged_over_their_relative_phase():
    # A loop whose two CTAs collide on the tensor pipe when aligned and share it when apart.
    path = [ins("HMMA", stall=1, dst=(4 * i,)) for i in range(8)]
    path += [ins("FMUL", stall=12) for _ in range(4)] + [ins("BAR")]
    lone = step_cycles(path, 1, 4, T)
    runs = [
        step_cycles(path, 2, 4, T, start_cycles=(0.0, (k + 0.5) / 4 * lone / 2)) for k in range(4)
    ]
    assert resident_step_cycles(path, 2, 4, T, phases=4) == pytest.approx(sum(runs) / 4)
    assert len({round(r) for r in runs}) > 1  # the phase matters for this loop
    # one CTA, or one phase: the plain replay
    assert resident_step_cycles(path, 1, 4, T) == step_cycles(path, 1, 4, T)
    assert resident_step_cycles(path, 2, 4, T, phases=1) == step_cycles(path, 2, 4, T)
    # a timing measured to run co-resident CTAs in one phase (cta_phase) replays them so
    assert resident_step_cycles(path, 2, 4, replace(T, phases=1)) == step_cycles(path, 2, 4, T)


def test_the_phases_come_from_the_profile_where_measured():
    core = load_profile("h200-sxm-core").sass_core_cycles.value
    assert CoreTiming.from_cycles(core, 126, 4).phases is None
    one = CoreTiming.from_cycles({**core, "co_resident_phases": 1.0}, 126, 4)
    assert one.phases == 1


def test_committed_paths_agree_with_the_committed_counts():
    counts = loop_counts()
    for key in ("tc_bf16_d128_m128_n32_w4_s2", "tc_fp16_d64_m128_n64_w4_s3"):
        path = loop_path(key)
        c = counts[key]
        assert len(path) == c["steady"] + c["hmma"] + c["ldsm"]
        assert sum(i.op == "HMMA" for i in path) == c["hmma"]


def test_the_core_profile_carries_the_measured_cycles():
    t = CoreTiming.from_profile(load_profile("h200-sxm-core"))
    assert t is not None and 5.5 < t.pipe_cycles["tensor"] < 7  # 4096 FLOP / ~680 per clock
    assert CoreTiming.from_profile(load_profile("h200-sxm")) is None


def test_with_the_core_profile_a_kernel_is_no_faster_than_its_replayed_loop():
    """The steps of every resident CTA take the core model's cycles per round; memory and
    the grid's tail only add to that."""
    from gpusim.engine.simulate import simulate
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

    p = load_profile("h200-sxm-core")
    w = Workload(batch=2, heads=16, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    s = Schedule(block_m=128, block_n=128, warps=8, stages=2)
    r = simulate("flash2", w, s, p)
    cycles = step_cycles(list(loop_path("tc_bf16_d128_m128_n128_w8_s2")), r.ctas_per_sm, 8,
                         CoreTiming.from_profile(p))  # fmt: skip
    rounds = -(-(2048 // 128) * 32 // (132 * r.ctas_per_sm))  # waves of the grid
    floor = rounds * (2048 // 128) * cycles / p.sm_clock_tensor_load_hz.value
    assert r.runtime_s >= 0.98 * floor
    plain = simulate("flash2", w, s, load_profile("h200-sxm"))
    assert plain.runtime_s != r.runtime_s


@pytest.mark.parametrize(("block_m", "warps", "q_in_registers"), [(64, 4, True), (128, 4, False)])
def test_the_pipe_models_steady_step_is_not_the_first_one(block_m, warps, q_in_registers):
    """With Q in registers (16 rows per warp) only the first step reads Q from shared
    memory; the step compared with the compiled loop is a steady one."""
    from algorithms import get_algorithm
    from gpusim.counting import traced_classes
    from gpusim.engine.prepare import steady_step
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

    w = Workload(batch=1, heads=1, seq_len_q=512, seq_len_k=512, head_dim=128, dtype="bf16")
    s = Schedule(block_m=block_m, block_n=32, warps=warps, stages=2)
    kernel = get_algorithm("flash2").kernels(w, s)[0]
    steps = [st for c in traced_classes(kernel) for st in c.program.steps if st.mma_flops]
    first, chosen = steps[0], steady_step(steps)
    kv_ldsm = warps * 2 * 32 * 128 * 2  # every warp reads the K and V tiles
    q_bytes = block_m * 128 * 2
    own = chosen.smem_bytes - chosen.smem_fill_bytes
    assert own == kv_ldsm + (0 if q_in_registers else q_bytes)
    assert first.smem_bytes - chosen.smem_bytes == (q_bytes if q_in_registers else 0)


def test_the_result_says_which_model_timed_each_kernel():
    """No silent fallback: where the core-model profile has no SASS loop to replay, the
    kernel's result says that the pipe model timed it, and why."""
    from gpusim.engine import simulate
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

    core = load_profile("h200-sxm-core")
    w = Workload(batch=2, heads=8, seq_len_q=1024, seq_len_k=1024, head_dim=128)
    (k,) = simulate("flash2", w, Schedule(block_m=128, block_n=64), core).kernels
    assert (k.timing_model, k.timing_note) == ("sass-replay", None)
    decode = Workload(batch=2, heads=8, seq_len_q=1, seq_len_k=8192, head_dim=128)
    split, combine = simulate(
        "flash2", decode, Schedule(block_m=64, block_n=64, kv_splits=4), core
    ).kernels
    # the split form of a committed instance: its own sampled loop (switch_replay.py)
    assert (split.timing_model, split.timing_note) == ("sass-replay", None)
    assert combine.timing_note is None  # no products: the pipe model is the only one
    d96 = Workload(batch=2, heads=8, seq_len_q=1, seq_len_k=8192, head_dim=96)
    split, _ = simulate("flash2", d96, Schedule(block_m=64, block_n=64, kv_splits=4), core).kernels
    assert split.timing_model == "pipe" and "timed by the pipe model" in split.timing_note
    (plain,) = simulate(
        "flash2", w, Schedule(block_m=128, block_n=64), load_profile("h200-sxm")
    ).kernels
    assert (plain.timing_model, plain.timing_note) == ("pipe", None)
