"""``verify``: every algorithm is exact in fp64 on the awkward shapes."""

import math

import pytest

from algorithms import ALGORITHMS
from gpusim.errors import GpusimError
from gpusim.numeric_verify import (
    BACKWARD_CASES,
    CASES,
    LONG_CONTEXT_CASES,
    VerifyResult,
    cases_for,
    verify,
)


def test_every_algorithm_is_exact_in_fp64():
    results = verify()
    forward = [r for r in results if "pass" not in r]
    assert [r["algorithm"] for r in forward] == list(ALGORITHMS)
    # each backward record comes right after its algorithm's forward one
    backward = [(i, r) for i, r in enumerate(results) if "pass" in r]
    assert [(results[i - 1]["algorithm"], r["algorithm"], r["pass"]) for i, r in backward] == [
        ("standard", "standard", "fwd+bwd"),
        ("flash2", "flash2", "fwd+bwd"),
    ]
    assert all(r["cases"] == len(BACKWARD_CASES) for _, r in backward)
    for r in results:
        if "pass" not in r:
            assert r["cases"] == len(cases_for(ALGORITHMS[r["algorithm"]]))
        assert r["nan_free"]
        assert r["max_rel_err"] < 1e-12, r
        assert r["rel_err_fp32"] < 1e-5
        assert 1e-6 < r["rel_err_fp16"] < 3e-3
        assert 1e-5 < r["rel_err_bf16"] < 2e-2


def test_cases_cover_the_awkward_shapes():
    assert any(c.seq_len_q > c.seq_len_k and c.causal for c in CASES)  # rows that see no key
    assert any(c.seq_len_q % c.block_m and c.seq_len_k % c.block_n for c in CASES)
    assert {16, 40, 64, 256} <= {c.head_dim for c in CASES}
    assert {True, False} == {c.causal for c in CASES}


def test_flash2_runs_every_long_context_case_and_the_others_the_gqa_ones():
    assert cases_for(ALGORITHMS["flash2"]) == CASES + LONG_CONTEXT_CASES
    gqa_only = [c for c in LONG_CONTEXT_CASES if c.heads_kv and c.kv_splits == 1]
    gqa_only = [c for c in gqa_only if not c.pack_gqa and c.kv_order == "forward"]
    assert cases_for(ALGORITHMS["flash1"]) == CASES + tuple(gqa_only)
    lc = LONG_CONTEXT_CASES
    assert any(c.seq_len_q == 1 and c.kv_splits > 1 for c in lc)
    assert any(c.seq_len_q == 16 and c.kv_splits > 1 for c in lc)
    assert any(-(-c.seq_len_k // c.block_n) % c.kv_splits for c in lc if c.kv_splits > 1)
    assert any(c.seq_len_k % c.block_n and c.kv_splits > 1 for c in lc)
    assert any(c.seq_len_q > c.seq_len_k and c.causal and c.kv_splits > 1 for c in lc)


def test_one_algorithm_and_unknown_names():
    (r,) = verify(["flash1"], seed=3)
    assert r["algorithm"] == "flash1" and not math.isnan(r["max_rel_err"])
    with pytest.raises(GpusimError, match="unknown algorithm"):
        verify(["flash3"])


def test_backward_cases_cover_the_awkward_shapes_and_round_trip():
    cs = BACKWARD_CASES
    assert any(c.seq_len_q > c.seq_len_k and c.causal for c in cs)  # rows that see no key
    assert any(c.heads_kv == 1 for c in cs) and any(c.heads_kv and c.heads_kv > 1 for c in cs)
    assert any(c.seq_len_q % c.block_m and c.seq_len_k % c.block_n for c in cs)
    record = next(r for r in verify(["flash2"]) if r.get("pass"))
    result = VerifyResult.from_record(record)
    assert result.pass_ == "fwd+bwd" and result.passed and result.to_dict() == record
