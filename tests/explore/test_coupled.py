"""Numbers derived from a varied field: l2_bytes moves the measured L2 loss curve, sm_clock_hz
the tensor-load clock, and every point says so."""

from __future__ import annotations

import pytest

import gpusim
from gpusim.explore.evaluate import PointEvaluator
from gpusim.explore.fields import varied_profile, varied_profile_with_notes

BASE = gpusim.load_profile("h200-sxm")  # has a measured l2_loss_by_depth and a tensor-load clock
MIB = 2**20
#: K and V are 32 MiB, near the 60 MiB L2 (whose measured loss is half by 35 MB): the K/V
#: re-reads of a head's query tiles hit or miss with the L2's size.
NEAR_L2 = {"batch": 1, "heads": 16, "seq_len_q": 4096, "seq_len_k": 4096, "head_dim": 128,
           "dtype": "bf16"}  # fmt: skip


def test_the_loss_curve_scales_with_l2_bytes_and_the_profile_says_so():
    p, notes = varied_profile_with_notes(BASE, {"l2_bytes": 24 * MIB})
    measured = BASE.l2_loss_by_depth.value
    assert [d for d, _ in p.l2_loss_by_depth.value] == pytest.approx(
        [d * 24 / 60 for d, _ in measured]
    )
    assert [s for _, s in p.l2_loss_by_depth.value] == [s for _, s in measured]
    assert "scaled by 0.4" in p.l2_loss_by_depth.source
    [note] = notes
    assert note.startswith("l2_bytes 24 MiB:") and "measured at 60 MiB" in note
    same, none = varied_profile_with_notes(BASE, {"l2_bytes": BASE.l2_bytes.value})
    assert same.l2_loss_by_depth == BASE.l2_loss_by_depth and none == []


def test_without_a_curve_the_note_says_lru():
    base = gpusim.load_profile("h200-sxm-datasheet")
    assert base.l2_loss_by_depth is None
    _, [note] = varied_profile_with_notes(base, {"l2_bytes": 24 * MIB})
    assert "LRU of l2_bytes" in note


def test_varying_l2_bytes_changes_dram_bytes_near_the_l2_size():
    w = gpusim.Workload(**NEAR_L2)
    sched = gpusim.Schedule(block_m=128, block_n=64, warps=4, stages=2)
    dram = {
        mib: gpusim.simulate(
            "flash2", w, sched, varied_profile(BASE, {"l2_bytes": mib * MIB})
        ).dram_read_bytes
        for mib in (6, 24, 60, 120)
    }
    compulsory = 3 * 16 * 4096 * 128 * 2  # Q, K, V read once
    assert dram[6] > dram[24] > dram[60] >= dram[120] >= compulsory
    assert dram[6] > 1.05 * dram[60]  # a 6 MiB L2 re-reads part of K/V (8 % measured)


def test_an_explore_point_carries_the_note_and_its_dram_bytes_move():
    evaluate = PointEvaluator.of(BASE, footprints="estimate")
    workload = gpusim.Workload(**NEAR_L2).model_dump(mode="json")
    small, full = (
        evaluate({"algorithm": "flash2", "params": {"l2_bytes": mib * MIB}, "workload": workload})
        for mib in (6, 60)
    )
    assert small["dram_read_bytes"] > full["dram_read_bytes"]
    assert "l2_bytes 6 MiB" in small["notes"] and full["notes"] is None


def test_sm_clock_moves_the_tensor_load_clocks_unless_varied_too():
    half = BASE.sm_clock_hz.value / 2
    p, [note, stream_note] = varied_profile_with_notes(BASE, {"sm_clock_hz": half})
    assert p.sm_clock_tensor_load_hz.value == pytest.approx(BASE.sm_clock_tensor_load_hz.value / 2)
    assert p.sm_clock_stream_load_hz.value == pytest.approx(BASE.sm_clock_stream_load_hz.value / 2)
    assert "tensor-load clock" in note and "stream-load clock" in stream_note
    w = gpusim.Workload(**NEAR_L2)
    slow, fast = (gpusim.simulate("flash2", w, None, q).runtime_s for q in (p, BASE))
    assert slow > 1.5 * fast  # a tensor-core kernel is mostly compute here
    # varying the tensor-load clock moves the stream-load clock (which the engine prefers) too
    tensor = BASE.sm_clock_tensor_load_hz.value
    both = {"sm_clock_hz": half, "sm_clock_tensor_load_hz": tensor / 2}
    q, [moved] = varied_profile_with_notes(BASE, both)
    assert q.sm_clock_tensor_load_hz.value == tensor / 2 and "stream-load" in moved
    assert q.sm_clock_stream_load_hz.value == pytest.approx(BASE.sm_clock_stream_load_hz.value / 2)
    every = {**both, "sm_clock_stream_load_hz": 1.0e9}
    r, notes = varied_profile_with_notes(BASE, every)
    assert r.sm_clock_stream_load_hz.value == 1.0e9 and notes == []
