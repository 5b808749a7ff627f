"""Device memory allocated: standard's S and P grow with N², FlashAttention's buffers with N."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim.api.device_memory import algorithm_footprint_bytes, tensor_bytes, tensors_used
from gpusim.workload import Workload


def _w(n: int, b: int = 2, h: int = 3, d: int = 64, dtype: str = "fp16") -> Workload:
    return Workload(batch=b, heads=h, seq_len_q=n, seq_len_k=n, head_dim=d, dtype=dtype)


def test_tensors_of_each_order():
    assert tensors_used("standard") == ("K", "O", "P", "Q", "S", "V")
    assert tensors_used("flash2") == ("K", "O", "Q", "V")
    assert {"m", "l", "Oacc"} <= set(tensors_used("flash2-kvq"))


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 5000),
    d=st.sampled_from([32, 64, 128]),
    dtype=st.sampled_from(["fp16", "fp32"]),
)
def test_sizes_follow_the_shapes(n, d, dtype):
    w = _w(n, d=d, dtype=dtype)
    e = w.elem_bytes
    bh = w.batch_heads
    assert algorithm_footprint_bytes("flash2", w) == 4 * bh * n * d * e
    assert algorithm_footprint_bytes("standard", w) == 4 * bh * n * d * e + 2 * bh * n * n * e
    assert tensor_bytes(w, "m") == bh * n * 4
    assert tensor_bytes(w, "Oacc") == bh * n * d * 4


def test_seed_001_example_attention_matrix():
    # Seed 001: batch 8, heads 32, N 2048 -> the attention matrix is 4.3 GB in fp32;
    # in fp16, S and P together are the same 4.3 GB.
    w = Workload(batch=8, heads=32, seq_len_q=2048, seq_len_k=2048, head_dim=128)
    s_and_p = algorithm_footprint_bytes("standard", w) - algorithm_footprint_bytes("flash2", w)
    assert s_and_p == 8 * 32 * 2048 * 2048 * 4


def test_grouped_heads_keep_one_kv_per_kv_head_and_splits_add_their_partials():
    from gpusim.schedule import Schedule

    w = Workload(batch=2, heads=8, heads_kv=2, seq_len_q=1, seq_len_k=4096, head_dim=64)
    e = w.elem_bytes
    qo = 2 * w.batch_heads * w.seq_len_q * w.head_dim * e
    kv = 2 * w.batch_heads_kv * w.seq_len_k * w.head_dim * e
    assert algorithm_footprint_bytes("flash2", w) == qo + kv
    split = algorithm_footprint_bytes("flash2", w, Schedule(kv_splits=4))
    assert split - (qo + kv) == w.batch_heads * 4 * (w.head_dim + 1) * 4
