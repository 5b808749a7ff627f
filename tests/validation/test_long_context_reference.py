"""The sampled float64 reference of the long-context sweep, run on NumPy against a full one."""

import numpy as np
import pytest

from gpusim.validation.long_context_reference import (
    judge_sample,
    reference_sample,
    sample_heads,
    sample_rows,
)
from gpusim.workload import Workload


def _full(w: Workload, q, k, v):
    g = w.heads // w.kv_heads
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64) / np.sqrt(w.head_dim)
    if w.causal:
        i = np.arange(w.seq_len_q)[:, None]
        s = np.where(np.arange(w.seq_len_k)[None] <= i + w.causal_offset, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p @ v) / p.sum(-1, keepdims=True)


def test_sample_rows_and_heads():
    assert sample_rows(16) == list(range(16))
    rows = sample_rows(4096)
    assert len(rows) == 128 and rows[:32] == list(range(32)) and rows[-1] == 4095
    assert sample_heads(Workload(batch=2, heads=3)) == [0, 5]


@pytest.mark.parametrize(("nq", "nk", "hkv", "causal"), [(200, 300, 2, True), (16, 500, 4, True)])
def test_sampled_reference_equals_the_full_one(nq, nk, hkv, causal):
    w = Workload(batch=2, heads=4, heads_kv=hkv, seq_len_q=nq, seq_len_k=nk, head_dim=32,
                 causal=causal)  # fmt: skip
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, 4, nq, 32)).astype(np.float32)
    k, v = (rng.standard_normal((2, hkv, nk, 32)).astype(np.float32) for _ in range(2))
    ref = reference_sample(np, w, q, k, v)
    full = _full(w, q, k, v)
    want = np.stack([full[bh // 4, bh % 4, ref["rows"]] for bh in ref["heads"]])
    assert np.allclose(ref["out"], want, atol=1e-12)
    good = judge_sample(np, w, full.astype(np.float32), ref)
    assert good["nan_count"] == 0 and good["rel_err"] < 1e-6
    bad = full.copy()
    bad[1, 3, nq - 1] += 1.0  # the last row of the last head is in the sample
    assert judge_sample(np, w, bad.astype(np.float32), ref)["rel_err"] > 1e-3
