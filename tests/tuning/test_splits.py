"""The tuner's split-KV candidates: where they can matter, ranked by the engine; the CUDA
kernel runs them (its split form and combine kernel), and packed GQA heads (its PACK form)."""

from __future__ import annotations

import pytest

from gpusim.schedule import Schedule
from gpusim.tuning import inference_space as sp
from gpusim.tuning.render import render_text
from gpusim.tuning.space import search_space
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload

DECODE = Workload(batch=1, heads=32, seq_len_q=1, seq_len_k=32768, head_dim=128, dtype="bf16")
PREFILL = Workload(batch=8, heads=32, seq_len_q=4096, seq_len_k=4096, head_dim=128, dtype="bf16")
TILE = {"block_m": 64, "block_n": 128, "warps": 4, "stages": 2}


def test_splits_are_tried_where_the_grid_leaves_sms_idle():
    tile = Schedule(**TILE)
    # 32 CTAs on 132 SMs: splits up to 2 CTAs per SM (and at most the 256 key blocks).
    assert sp.split_counts(DECODE, tile, 132) == [2, 4, 8]
    assert sp.split_counts(PREFILL, tile, 132) == []  # 16,384 CTAs fill the GPU
    short = DECODE.model_copy(update={"seq_len_k": 300})  # 3 key blocks
    assert sp.split_counts(short, tile, 132) == [2]


def test_split_schedules_run_on_the_cuda_kernel_and_reuse_their_tiles_instance():
    plain = search_space("flash2", DECODE)
    space = sp.tuning_space("flash2", DECODE, 132)
    assert not any(s.kv_splits != 1 for s in plain.schedules)  # the plain tile space
    splits = [s for s in space.schedules if s.kv_splits != 1]
    assert splits and not set(splits) & set(space.modelled)  # flash2_tc's SPLIT form runs them
    for s in splits:
        tile = s.model_copy(update={"kv_splits": 1})
        assert tile not in space.unsupported  # no split variants of tiles the kernel lacks
        assert space.instance_keys.get(s) == space.instance_keys.get(tile)


@pytest.fixture(scope="module")
def decode_result():
    from gpusim.profiles.loader import load_profile

    return tune("flash2", DECODE, load_profile("h200-sxm-datasheet"), fixed=TILE, caps=False)


def test_the_tuner_picks_a_split_for_a_decode_step(decode_result):
    r = decode_result
    assert sorted(c.schedule.kv_splits for c in r.candidates) == [1, 2, 4, 8]
    best, plain = r.best, next(c for c in r.candidates if c.schedule.kv_splits == 1)
    assert best.schedule.kv_splits > 1 and best.runtime_s < 0.5 * plain.runtime_s
    assert best.modelled is None and plain.modelled is None
    # One query in a 64-row tile: the tensor cores do 64 times the useful work.
    assert best.executed_mma_flops == 64 * DECODE.model_flops()
    # The block-size rules choose tiles, not splits; their loss is against the overall best.
    for p in r.rules:
        assert p.schedule.kv_splits == 1
        assert p.slower_than_best == pytest.approx(p.runtime_s / best.runtime_s - 1)
    d = r.to_dict()
    assert d["modelled_candidates"] == 0 and d["candidates"][0]["kv_splits"] > 1


def test_the_table_shows_splits_modelled_and_executed_flops(decode_result):
    text = render_text(decode_result, width=160)
    assert " split " in text and "exec" in text and "64x" in text
    assert "modelled: no CUDA kernel" not in text
    assert all(len(line) <= 80 for line in render_text(decode_result, width=80).splitlines())


def test_split_twins_of_a_tile_that_does_not_fit_are_not_listed_again(h200, fake_simulate):
    r = tune("flash2", DECODE, h200, sram_bytes=100 * 1024, simulate=fake_simulate)
    big = [x for x in r.rejected if x.schedule.block_n == 128 and x.schedule.stages == 3]
    assert big and all(x.schedule.kv_splits == 1 for x in big)
    assert any(c.schedule.kv_splits > 1 for c in r.candidates)


def test_grouped_heads_add_packed_tiles_that_the_kernel_runs():
    gqa = DECODE.model_copy(update={"batch": 8, "heads_kv": 8})  # groups of 4
    space = sp.tuning_space("flash2", gqa, 132)
    packed = [s for s in space.schedules if s.pack_gqa]
    assert packed and all(s.block_m % 4 == 0 for s in packed)
    runnable = [s for s in space.schedules if s not in space.unsupported]
    # flash2_tc reads grouped K/V heads (its GQA switch) and packs them (its PACK switch)
    assert any(s.pack_gqa for s in runnable) and not space.modelled
    # 8 x 8 packed tiles of 16 queries: 64 CTAs, so splits; 256 unpacked CTAs: none.
    tile = Schedule(**TILE)
    assert sp.split_counts(gqa, tile.model_copy(update={"pack_gqa": True}), 132) == [2, 4]
    assert sp.split_counts(gqa, tile, 132) == []
