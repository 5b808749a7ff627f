"""``verify``: every algorithm is exact in fp64 on the awkward shapes."""

import math

import pytest

from algorithms import ALGORITHMS
from gpusim.errors import GpusimError
from gpusim.numeric_verify import CASES, verify


def test_every_algorithm_is_exact_in_fp64():
    results = verify()
    assert [r["algorithm"] for r in results] == list(ALGORITHMS)
    for r in results:
        assert r["cases"] == len(CASES)
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


def test_one_algorithm_and_unknown_names():
    (r,) = verify(["flash1"], seed=3)
    assert r["algorithm"] == "flash1" and not math.isnan(r["max_rel_err"])
    with pytest.raises(GpusimError, match="unknown algorithm"):
        verify(["flash3"])
