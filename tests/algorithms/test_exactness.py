"""Every algorithm computes exact attention: fp64 storage agrees with the reference to rounding."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import ALGORITHMS
from algorithms.numeric import random_inputs, reference, rel_err, run
from gpusim.schedule import Schedule
from gpusim.workload import Workload

NAMES = list(ALGORITHMS)


def _run(name, w, block_m, block_n, seed=0):
    block_m = 1 if name == "flash-naive-qkv" else block_m
    inputs = random_inputs(w, seed)
    out = run(ALGORITHMS[name], w, Schedule(block_m=block_m, block_n=block_n), inputs)
    return out, reference(w, inputs)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(
    batch=st.integers(1, 2),
    heads=st.integers(1, 2),
    nq=st.integers(1, 48),
    nk=st.integers(1, 48),
    d=st.sampled_from([16, 24, 40, 64]),
    block_m=st.sampled_from([1, 3, 8, 16, 32]),
    block_n=st.sampled_from([2, 5, 8, 16, 32]),
    causal=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_fp64_matches_reference(name, batch, heads, nq, nk, d, block_m, block_n, causal, seed):
    w = Workload(
        batch=batch,
        heads=heads,
        seq_len_q=nq,
        seq_len_k=nk,
        head_dim=d,
        dtype="fp64",
        causal=causal,
    )
    out, ref = _run(name, w, block_m, block_n, seed)
    assert np.isfinite(out).all()
    assert rel_err(out, ref) < 1e-12


@pytest.mark.parametrize("name", NAMES)
def test_causal_rows_that_see_no_key_are_zero(name):
    # Nq > Nk, bottom-right aligned: the first Nq - Nk rows see nothing.
    w = Workload(
        batch=1, heads=1, seq_len_q=40, seq_len_k=13, head_dim=16, dtype="fp64", causal=True
    )
    out, ref = _run(name, w, 8, 4)
    assert np.isfinite(out).all()
    assert np.all(out[:, :27] == 0)
    assert rel_err(out, ref) < 1e-12


@pytest.mark.parametrize("name", NAMES)
def test_head_dim_256(name):
    w = Workload(batch=1, heads=1, seq_len_q=19, seq_len_k=23, head_dim=256, dtype="fp64")
    out, ref = _run(name, w, 16, 16)
    assert rel_err(out, ref) < 1e-12


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("dtype", "tol"), [("fp32", 1e-5), ("fp16", 3e-3), ("bf16", 2e-2)])
def test_low_precision_errors_are_those_of_the_storage_type(name, dtype, tol):
    w = Workload(
        batch=1, heads=2, seq_len_q=45, seq_len_k=61, head_dim=64, dtype=dtype, causal=True
    )
    out, ref = _run(name, w, 16, 16)
    err = rel_err(out, ref)
    assert np.isfinite(out).all()
    assert err < tol
    # and not suspiciously exact: the output really is rounded to the storage type
    assert err > 1e-9
