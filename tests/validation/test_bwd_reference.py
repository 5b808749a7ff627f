"""The float64 reference of attention's backward (on numpy arrays here) and the error
arithmetic that judges PyTorch's gradients against it."""

import math

import numpy as np
import pytest

from gpusim.validation import bwd_reference as m


def test_relative_frobenius_error_and_nan_count():
    ref = np.array([[3.0, 0.0], [0.0, 4.0]])
    assert m.rel_fro_err(ref, ref) == 0.0
    assert m.rel_fro_err(ref + np.array([[0.0, 0.5], [0.0, 0.0]]), ref) == pytest.approx(0.1)
    assert m.rel_fro_err(2 * ref, ref) == pytest.approx(1.0)
    got = ref.copy()
    got[0, 1] = np.nan
    assert math.isnan(m.rel_fro_err(got, ref)) and m.nan_count(got) == 1
    assert m.rel_fro_err(np.zeros(2), np.zeros(2)) == 0.0
    assert m.rel_fro_err(np.ones(2), np.zeros(2)) == math.inf


def test_group_sum_adds_the_query_heads_of_each_kv_head():
    b, hk, g, n, d = 2, 3, 4, 5, 2
    x = np.arange(b * hk * g * n * d, dtype=float).reshape(b * hk * g, n, d)
    got = m.group_sum(x, b, hk, g)
    assert got.shape == (b * hk, n, d)
    # query head h of batch element i is x[i * hk * g + h]; its K/V head is h // g
    want = np.stack(
        [sum(x[i * hk * g + j * g + r] for r in range(g)) for i in range(b) for j in range(hk)]
    )
    assert np.array_equal(got, want)


def test_reference_chunks_cover_every_score_once_within_the_budget():
    for bh, nq, nk, budget in [
        (6, 4, 8, 64),
        (6, 4, 8, 40),
        (3, 10, 7, 20),
        (2, 5, 9, 3),
        (1, 1, 1, 1),
    ]:
        seen = np.zeros((bh, nq), dtype=int)
        for h0, h1, r0, r1 in m.reference_chunks(bh, nq, nk, budget):
            assert (h1 - h0) * (r1 - r0) * nk <= max(budget, nk)
            seen[h0:h1, r0:r1] += 1
        assert (seen == 1).all()
    assert m.reference_chunks(6, 4, 8, 64) == [(0, 2, 0, 4), (2, 4, 0, 4), (4, 6, 0, 4)]
    assert m.reference_chunks(1, 10, 7, 20) == [(0, 1, r, min(10, r + 2)) for r in range(0, 10, 2)]


def _attention(q, k, v, causal, scale):
    """softmax(scale Q K^T) V written directly (no chunks), float64."""
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        nq, nk = s.shape[-2:]
        s = np.where(np.arange(nk)[None, :] > np.arange(nq)[:, None] + nk - nq, -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("causal", [False, True])
def test_the_reference_gradients_are_the_derivatives_of_the_attention(causal):
    rng = np.random.default_rng(7)
    q, k, v, do = (rng.standard_normal((2, 5, 4)) for _ in range(4))
    scale = 0.5
    ops = m.NumpyOps()
    o, dq, dk, dv = m.attention_reference(ops, q, k, v, do, causal, scale, budget=7)
    assert np.allclose(o, _attention(q, k, v, causal, scale), rtol=0, atol=1e-12)
    if causal:
        assert np.allclose(o[:, 0], v[:, 0])  # the first query sees the first key alone
    # d/dx sum(O * dO), by central differences, element by element
    eps = 1e-6
    for x, grad in ((q, dq), (k, dk), (v, dv)):
        num = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            x0 = x[i]
            x[i] = x0 + eps
            up = (_attention(q, k, v, causal, scale) * do).sum()
            x[i] = x0 - eps
            down = (_attention(q, k, v, causal, scale) * do).sum()
            x[i] = x0
            num[i] = (up - down) / (2 * eps)
        assert np.allclose(grad, num, rtol=1e-6, atol=1e-7)
    # chunking does not change the result
    whole = m.attention_reference(ops, q, k, v, do, causal, scale, budget=10**9)
    for a, b in zip(whole, (o, dq, dk, dv), strict=True):
        assert np.allclose(a, b, rtol=0, atol=1e-12)


def test_verdict():
    ok = {"dq": 5e-3, "dk": 4e-3, "dv": 3e-3, "out": 2e-3}
    assert m.verdict(ok, None, "bf16") is None
    assert "dq error 0.05 > 0.02" in m.verdict(ok | {"dq": 0.05}, None, "bf16")
    # three times PyTorch's own error in the same dtype passes
    assert m.verdict(ok | {"dq": 0.05}, {"dq": 0.02}, "bf16") is None
    assert m.verdict({"dq": 4e-3}, {"dq": 1e-3}, "fp16") == "dq error 0.004 > 0.003"
    assert "dk error nan" in m.verdict(ok | {"dk": math.nan}, None, "bf16")
    assert "dv error None" in m.verdict(ok | {"dv": None}, None, "fp16")
