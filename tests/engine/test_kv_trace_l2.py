"""The K/V trace L2: reuse distance in distinct bytes, walking orders, GQA sharing."""

from __future__ import annotations

import pytest

from gpusim.engine.kv_trace_l2 import kv_trace_dram

L2 = 60 << 20
#: a loss curve with the H200's shape: nothing lost below 24 MiB, all by 45 MiB
CURVE = ((24 << 20, 0.0), (35 << 20, 0.5), (45 << 20, 1.0))


def _kv(**kw) -> int:
    args = dict(
        batch=1, heads=1, heads_kv=1, seq_q=4096, seq_k=4096, head_dim=128, elem_bytes=2,
        causal=False, block_m=128, block_n=64, kv_order="forward", q_order="last-first",
        slots=264, loss_curve=CURVE, scatter=0.0, capacity_bytes=L2,
    )  # fmt: skip
    args.update(kw)
    return kv_trace_dram(**args).kv_dram_read_bytes


def kv_bytes(heads_kv: int, n: int, d: int = 128) -> int:
    return 2 * heads_kv * n * d * 2


def test_reread_within_capacity_hits():
    # 8 heads x 4k keys: 16 MiB of K/V, re-read by every query block: fetched once
    assert _kv(heads=8, heads_kv=8) == kv_bytes(8, 4096)
    assert _kv(heads=8, heads_kv=8, causal=True, kv_order="backward") == kv_bytes(8, 4096)


def test_lockstep_wave_reads_kv_once_per_wave():
    # 1 head, 128k keys (64 MiB of K/V, past the curve), 1024 query blocks, 256 slots: four
    # waves, each walking K/V forward together: each wave fetches it once, not per CTA
    got = _kv(seq_q=131072, seq_k=131072, slots=256)
    assert got == pytest.approx(4 * kv_bytes(1, 131072), rel=0.01)


def test_backward_first_first_thrashes_last_first_does_not():
    # Causal 128k, backward from the diagonal: launched first-first, CTAs start at scattered
    # times and diagonals, so a block's next reader comes many distinct bytes later; last
    # first, the long CTAs start together and their fronts slide down side by side.
    kw = dict(heads=2, heads_kv=2, seq_q=131072, seq_k=131072, causal=True, kv_order="backward")
    lf = _kv(q_order="last-first", **kw)
    ff = _kv(q_order="first-first", **kw)
    assert lf < 2.5 * kv_bytes(2, 131072)
    assert ff > 5 * lf


def test_gqa_group_shares_kv():
    # 4 query heads over one K/V head read the same tiles (launched one head after the
    # other, so the fronts of neighbouring heads overlap): far fewer fetches than 4 heads
    shared = _kv(heads=4, heads_kv=1, seq_q=32768, seq_k=32768)
    own = _kv(heads=4, heads_kv=4, seq_q=32768, seq_k=32768)
    assert shared < own / 2


def test_distinct_not_inserted_bytes_age_lines():
    # Without a curve (an LRU of the capacity): 16 MiB of K/V re-read in lockstep by many
    # CTAs makes few insertions but many reads; the hits keep their lines young.
    assert _kv(heads=8, heads_kv=8, loss_curve=(), capacity_bytes=20 << 20) == kv_bytes(8, 4096)
    # and a set larger than the capacity, re-read after everything else, misses again
    assert _kv(heads=1, seq_q=131072, seq_k=131072, slots=1024, loss_curve=(),
               capacity_bytes=L2) == kv_bytes(1, 131072)  # fmt: skip


def test_bad_heads_refused():
    with pytest.raises(ValueError, match="multiple"):
        _kv(heads=6, heads_kv=4)


def test_shared_aging_one_is_the_judged_model():
    kw = dict(heads=2, heads_kv=2, seq_q=65536, seq_k=65536, causal=True, q_order="first-first")
    assert _kv(shared_aging=1.0, **kw) == _kv(**kw)


def test_shared_aging_deepens_kv_reuse_only():
    # 1 head of 32k keys (16 MiB of K/V) walked by two lockstep waves of 128 CTAs: the second
    # re-reads each block 16 MiB of K/V plus 8 MiB of the first wave's Q/O deep, 24 MiB,
    # where the curve loses nothing. At 1.5 read-once bytes per K/V byte it lies 32 MiB deep
    # (the curve loses 36 %), at 2 x 40 MiB (75 %); the Q/O bytes count once either way.
    kw = dict(seq_q=32768, seq_k=32768, slots=128)
    once = kv_bytes(1, 32768)
    assert _kv(**kw) == once
    assert _kv(shared_aging=1.5, **kw) == pytest.approx(once * (1 + 0.36), rel=0.05)
    assert _kv(shared_aging=2.0, **kw) == pytest.approx(once * (1 + 0.75), rel=0.05)


def test_measured_ctas_replay_the_dispatch_they_equal_and_half_a_life_apart_reads_twice():
    # The stamps' path: the even dispatch's own starts and ends give its bytes; the same
    # grid with every SM's second CTA half a life behind (an older-first SM in its steady
    # state) reads the 64 MiB of K/V once per cohort, about twice as often.
    import numpy as np

    from gpusim.engine import sm_mates

    kw = dict(seq_q=131072, seq_k=131072, slots=256)
    steps = 131072 // 64 + 1
    even = sm_mates.run(np.full(1024, float(steps)), 128, 2, 1.0)
    assert _kv(**kw, per_sm=2, measured=(even.start, even.end)) == _kv(**kw, per_sm=2)
    # two cohorts of 128 CTAs, the second half a life behind; each CTA's life is ``steps``
    gen = np.arange(1024) // 256
    lag = np.where(np.arange(1024) % 256 >= 128, steps / 2, 0.0)
    start = gen * steps + lag
    apart = _kv(**kw, per_sm=2, measured=(start, start + steps))
    assert apart == pytest.approx(2 * _kv(**kw, per_sm=2), rel=0.05)
