"""Split-KV as the CUDA kernels run it: slices of whole key blocks, and which blocks a query
block visits; checked against brute force over small shapes."""

import pytest

from gpusim.kernel_catalog.split_kv import CombineInstance, split_slices, visible_key_blocks


@pytest.mark.parametrize(("total", "splits"), [(0, 3), (1, 4), (7, 3), (64, 16), (65, 16), (5, 5)])
def test_slices_cover_the_blocks_in_order_as_evenly_as_possible(total, splits):
    slices = split_slices(total, splits)
    assert len(slices) == splits
    blocks = [b for first, n in slices for b in range(first, first + n)]
    assert blocks == list(range(total))  # each block once, in order, slices contiguous
    sizes = [n for _, n in slices]
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)  # the longer slices come first


def test_more_splits_than_blocks_leaves_empty_slices():
    assert [n for _, n in split_slices(2, 5)] == [1, 1, 0, 0, 0]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(("nq", "nk"), [(1, 100), (16, 777), (257, 389), (389, 257), (64, 64)])
def test_visible_key_blocks_is_the_last_seen_key_block_plus_one(nq, nk, causal):
    rows, bn = 64, 32
    for q0 in range(0, nq, rows):
        seen = [
            j
            for i in range(q0, min(q0 + rows, nq))
            for j in range(nk)
            if not causal or j <= i + nk - nq
        ]
        want = max(seen) // bn + 1 if seen else 0
        assert visible_key_blocks(q0, rows, nq, nk, causal, bn) == want


def test_combine_instance_names():
    c = CombineInstance("bf16", 128)
    assert c.name_expression == "flash2_combine<true,128>"
    assert c.key == "combine_bf16_d128"
    assert c.grid_ctas(9) == 3 and c.threads == 128
