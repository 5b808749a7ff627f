"""The long-context check's float64 slices, on NumPy: merging them as flash2_combine.cu does
gives full attention back, on awkward shapes (empty slices, rows that see no key, GQA)."""

import numpy as np
import pytest

from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernels.check import reference_attention
from gpusim.kernels.check_long_context import CASES, case_workload, split_reference, variants


def _combine(lse, part, written):
    """flash2_combine.cu's merge, restated: over the splits written for the row's query
    block, weights exp(L_s - max L), 0 where no split saw a key."""
    lse = np.where(written, lse, -np.inf)
    mx = lse.max(axis=-1, keepdims=True)
    w = np.where(np.isfinite(lse), np.exp(lse - np.where(np.isfinite(mx), mx, 0.0)), 0.0)
    den = w.sum(axis=-1)
    part = np.where(written[..., None], part, 0.0)
    return (w[..., None] * part).sum(axis=-2) / np.where(den > 0, den, 1.0)[..., None]


@pytest.mark.parametrize("case", CASES)
def test_slices_merge_into_the_full_attention(case):
    inst = KernelInstance("tc", "bf16", 32, 64, 32, 4, 2, gqa=True, split=True)
    w, splits = case_workload(inst, case)
    rng = np.random.default_rng(1)
    q = rng.standard_normal((w.batch, w.heads, w.seq_len_q, 32))
    k, v = (rng.standard_normal((w.batch, w.kv_heads, w.seq_len_k, 32)) for _ in range(2))
    lse, part, written = split_reference(np, w, inst, q, k, v, splits)
    assert not np.isnan(lse).any() and not np.isnan(part).any()
    got = _combine(lse, part, written).reshape(q.shape)
    want = reference_attention(np, q, k, v, w.causal)
    assert np.allclose(got, want, atol=1e-10)


def test_some_case_has_exited_splits_and_rows_that_see_nothing():
    inst = KernelInstance("tc", "bf16", 32, 64, 32, 4, 2, split=True)
    empties = []
    for case in CASES:
        w, splits = case_workload(inst, case)
        rng = np.random.default_rng(2)
        q = rng.standard_normal((w.batch, w.heads, w.seq_len_q, 32))
        k, v = (rng.standard_normal((w.batch, w.kv_heads, w.seq_len_k, 32)) for _ in range(2))
        lse, _, written = split_reference(np, w, inst, q, k, v, splits)
        empties.append(np.isinf(lse).all(axis=-1).any() and not written.all())
    assert any(empties)


def test_variants_cover_each_switch_and_keep_their_cases_valid():
    insts = variants()
    assert len({i.key for i in insts}) == len(insts)
    for switch in ("kv_backward", "q_first", "gqa", "split"):
        assert any(getattr(i, switch) for i in insts)
    for inst in insts:
        for case in CASES:
            w, splits = case_workload(inst, case)
            assert (w.kv_heads != w.heads) == inst.gqa
            assert (splits > 1) == inst.split
