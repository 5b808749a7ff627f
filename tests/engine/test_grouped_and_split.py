"""The engine on GQA grids (K/V tiles shared by a group's heads) and split-KV's two kernels."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.engine.estimate import estimate
from gpusim.schedule import Schedule
from gpusim.workload import Workload

DECODE = dict(batch=2, heads=8, seq_len_q=1, seq_len_k=4096, head_dim=64, dtype="bf16")
TILE = Schedule(block_m=64, block_n=64, warps=4, stages=2)


def _kv_bytes(w: Workload) -> int:
    return 2 * w.batch_heads_kv * w.seq_len_k * w.head_dim * w.elem_bytes


def test_a_groups_heads_fetch_their_kv_from_dram_once(h200):
    mha = Workload(**DECODE)
    gqa = Workload(**DECODE, heads_kv=2)
    a, b = simulate("flash2", mha, TILE, h200), simulate("flash2", gqa, TILE, h200)
    # Every head's CTAs still ask the L2 for the whole K and V ...
    assert a.global_read_bytes == b.global_read_bytes
    # ... but DRAM serves each K/V head once (plus Q), within 1 %.
    assert a.dram_read_bytes == pytest.approx(_kv_bytes(mha), rel=0.01)
    assert b.dram_read_bytes == pytest.approx(_kv_bytes(gqa), rel=0.01)
    assert estimate("flash2", gqa, TILE, h200).dram_bytes == pytest.approx(
        b.dram_read_bytes + b.dram_write_bytes, rel=0.01
    )


def test_packing_a_group_into_a_tile_reads_its_kv_once_from_the_l2(h200):
    gqa = Workload(**DECODE, heads_kv=2)
    packed = simulate("flash2", gqa, TILE.model_copy(update={"pack_gqa": True}), h200)
    assert packed.global_read_bytes == pytest.approx(_kv_bytes(gqa), rel=0.01)
    assert packed.kernels[0].ctas == gqa.batch_heads_kv


@pytest.mark.parametrize("splits", [3, 4])
def test_split_kv_aggregated_agrees_with_the_detailed_run(h200, splits):
    w = Workload(batch=1, heads=16, seq_len_q=1, seq_len_k=8192, head_dim=128, dtype="bf16")
    s = TILE.model_copy(update={"kv_splits": splits})
    agg = simulate("flash2", w, s, h200, detail="aggregated")
    full = simulate("flash2", w, s, h200, detail="full")
    assert [k.name for k in agg.kernels] == ["flash2_split", "flash2_combine"]
    assert agg.runtime_s == pytest.approx(full.runtime_s, rel=0.01)
    assert agg.dram_read_bytes == full.dram_read_bytes
    if 128 % splits == 0:
        # Equal slices time as one class: the split kernel runs as a few CTA groups.
        assert agg.kernels[0].groups < agg.kernels[0].ctas // 8


def test_splitting_a_decode_step_that_leaves_sms_idle_is_faster(h200):
    w = Workload(batch=1, heads=32, seq_len_q=1, seq_len_k=32768, head_dim=128, dtype="bf16")
    one = simulate("flash2", w, TILE, h200).runtime_s
    four = simulate("flash2", w, TILE.model_copy(update={"kv_splits": 4}), h200).runtime_s
    assert four < 0.6 * one
