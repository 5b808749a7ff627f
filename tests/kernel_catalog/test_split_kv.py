"""Split-KV as the CUDA kernels run it: the model's slices of whole key blocks, clipped to
what a query block sees, and the splits the combine kernel reads; against brute force."""

import pytest

from gpusim.kernel_catalog.split_kv import (
    CombineInstance,
    combine_rows_of,
    slice_blocks,
    splits_for_block,
)
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _w(nq, nk, causal):
    return Workload(batch=1, heads=1, seq_len_q=nq, seq_len_k=nk, head_dim=64, causal=causal)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(("nq", "nk", "splits"), [(1, 1000, 5), (257, 389, 3), (389, 257, 4)])
def test_slices_cover_each_query_blocks_visible_keys_once(nq, nk, splits, causal):
    w, s = _w(nq, nk, causal), Schedule(block_m=64, block_n=32, kv_splits=splits)
    tc = -(-nk // 32)
    for q0 in range(0, nq, 64):
        seen = {
            j // 32
            for i in range(q0, min(q0 + 64, nq))
            for j in range(nk)
            if not causal or j <= i + nk - nq
        }
        want = range(max(seen) + 1) if seen else range(0)
        got = [b for n in range(splits) for b in slice_blocks(w, s, n, q0)]
        assert got == list(want)  # in order, each block once
        full = [len(range(n * tc // splits, (n + 1) * tc // splits)) for n in range(splits)]
        assert max(full) - min(full) <= 1  # before clipping: as even as possible
        # the splits with keys are a prefix, and the combine reads exactly those
        with_keys = [n for n in range(splits) if slice_blocks(w, s, n, q0)]
        assert with_keys == list(range(splits_for_block(w, s, q0)))


def test_combine_takes_a_divisor_of_the_query_block():
    w = Workload(dtype="bf16")
    assert combine_rows_of(w, Schedule(block_m=64)) == 16
    assert combine_rows_of(w, Schedule(block_m=128)) == 16
    assert 64 % combine_rows_of(w, Schedule(block_m=64)) == 0


def test_combine_instance_names_and_grid():
    c = CombineInstance("bf16", 128)
    assert c.name_expression == "flash2_combine<true,128>"
    assert c.key == "combine_bf16_d128"
    w = Workload(batch=2, heads=3, seq_len_q=17, dtype="bf16")
    assert c.grid(w, 16) == (2, 6, 1) and c.threads == 128
