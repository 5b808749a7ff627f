"""The GPU check's array helpers, run with NumPy standing in for CuPy (same API)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms.numeric import round_to_storage
from gpusim.kernels.check import poisoned_output, reference_attention, visible_mask
from gpusim.kernels.schedule_timing import from_bf16_bits, random_inputs, to_bf16_bits
from gpusim.workload import Workload


def naive_attention(q, k, v, causal):
    nq, nk = q.shape[-2], k.shape[-2]
    out = np.zeros((*q.shape[:-2], nq, v.shape[-1]))
    for idx in np.ndindex(q.shape[:-2]):
        for i in range(nq):
            keys = [j for j in range(nk) if not causal or j <= i + nk - nq]
            if not keys:
                continue
            s = np.array([q[idx][i] @ k[idx][j] for j in keys]) / math.sqrt(q.shape[-1])
            p = np.exp(s - s.max())
            out[idx][i] = (p / p.sum()) @ v[idx][keys]
    return out


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.booleans(), st.integers(0, 1000))
def test_reference_matches_naive_including_rows_without_keys(nq, nk, causal, seed):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((2, n, 4)) for n in (nq, nk, nk))
    got = reference_attention(np, q, k, v, causal)
    np.testing.assert_allclose(got, naive_attention(q, k, v, causal), rtol=1e-12, atol=1e-12)


def test_visible_mask_is_bottom_right_aligned():
    m = visible_mask(np, 3, 5, True)
    assert m.tolist() == [
        [True, True, True, False, False],
        [True, True, True, True, False],
        [True, True, True, True, True],
    ]
    assert not visible_mask(np, 5, 2, True)[:3].any()


@given(st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_bf16_bits_round_like_the_numeric_interpreter(x):
    arr = np.array([x], dtype=np.float32)
    got = from_bf16_bits(np, to_bf16_bits(np, arr))
    np.testing.assert_array_equal(got, round_to_storage(arr, "bf16"))


def test_random_inputs_are_nonzero_and_in_storage_type():
    w = Workload(batch=1, heads=2, seq_len_q=5, seq_len_k=7, head_dim=32, dtype="bf16")
    q, k, v = random_inputs(np, w, seed=3)
    assert q.shape == (1, 2, 5, 32) and k.shape == v.shape == (1, 2, 7, 32)
    assert q.dtype == np.uint16
    assert np.count_nonzero(from_bf16_bits(np, q)) == q.size


def test_poisoned_output_is_nan_with_a_guard():
    w = Workload(batch=1, heads=1, seq_len_q=4, seq_len_k=4, head_dim=32, dtype="fp16")
    like = np.zeros((1, 1, 4, 32), dtype=np.float16)
    out, buf = poisoned_output(np, w, like)
    assert out.shape == like.shape and out.flags.c_contiguous
    assert np.isnan(buf).all() and buf.size > out.size
