"""Split-KV decoding: exact on awkward shapes, even slices, partials where they are due."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import get_algorithm
from algorithms.numeric import NumericMachine, random_inputs, reference, rel_err, run
from algorithms.split_kv import combine_rows, split_slice
from algorithms.tiling import kv_blocks, visible_kv_blocks
from gpusim.counting import count
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

FLASH2 = get_algorithm("flash2")


def _w(**kw) -> Workload:
    return Workload(**({"batch": 1, "heads": 2, "head_dim": 16, "dtype": "fp64"} | kw))


@settings(max_examples=40, deadline=None)
@given(
    nq=st.integers(1, 40),
    nk=st.integers(1, 90),
    block_m=st.sampled_from([1, 4, 8, 16]),
    block_n=st.sampled_from([2, 5, 8, 16]),
    splits=st.integers(2, 9),
    causal=st.booleans(),
    backward=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_split_kv_is_exact(nq, nk, block_m, block_n, splits, causal, backward, seed):
    w = _w(seq_len_q=nq, seq_len_k=nk, causal=causal)
    splits = min(splits, kv_blocks(w, block_n))
    if splits < 2:
        return
    order = "backward" if backward else "forward"
    s = Schedule(block_m=block_m, block_n=block_n, kv_splits=splits, kv_order=order)
    inputs = random_inputs(w, seed)
    out = run(FLASH2, w, s, inputs)
    assert np.isfinite(out).all()
    assert rel_err(out, reference(w, inputs)) < 1e-12


@pytest.mark.parametrize(("blocks", "splits"), [(7, 3), (13, 7), (8, 8), (100, 7), (5, 2)])
def test_slices_are_whole_blocks_as_even_as_possible_and_cover_the_keys(blocks, splits):
    w, s = _w(seq_len_q=1, seq_len_k=blocks * 4), Schedule(block_n=4, kv_splits=splits)
    slices = [split_slice(w, s, i) for i in range(splits)]
    assert [b for sl in slices for b in sl] == list(range(blocks))
    sizes = {len(sl) for sl in slices}
    assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1


def _run_keeping_tensors(w: Workload, s: Schedule) -> dict[str, np.ndarray]:
    tensors = random_inputs(w, 7)
    tm = NumericMachine(w, tensors, s.kv_splits)
    for kernel in FLASH2.kernels(w, s):
        for bh in range(kernel.grid_batch_heads):
            for block in range(kernel.blocks_per_bh()):
                kernel.body(tm, bh, block)
    return tensors


def test_a_split_no_key_of_which_a_row_sees_has_lse_minus_inf_and_the_combine_no_nan():
    # Nq 16 against Nk 100, causal bottom-right: row i sees keys <= 84 + i. 7 splits of
    # 13 blocks of 8: the last split has blocks 11, 12 (keys 88..99), which rows 0..3 miss.
    w = _w(seq_len_q=16, seq_len_k=100, causal=True)
    s = Schedule(block_m=16, block_n=8, kv_splits=7)
    t = _run_keeping_tensors(w, s)
    lse = t["LSE"][:, :, 6]
    assert np.isneginf(lse[:, :4]).all() and np.isfinite(lse[:, 4:]).all()
    assert (t["Opart"][:, :4, 6 * 16 :] == 0).all()
    assert rel_err(t["O"], reference(w, t)) < 1e-12


def test_rows_that_see_no_key_at_all_give_zeros_and_empty_splits_write_nothing():
    w = _w(seq_len_q=40, seq_len_k=13, causal=True)  # rows 0..26 see no key
    s = Schedule(block_m=8, block_n=4, kv_splits=3)
    t = _run_keeping_tensors(w, s)
    assert (t["O"][:, :27] == 0).all() and np.isfinite(t["O"]).all()
    # Query tile 0 (rows 0..7) sees no key block: none of its splits wrote a partial (the
    # buffers start as NaN), and the combine did not read them (O is finite).
    assert visible_kv_blocks(w, 0, 8, 4) == 0
    assert np.isnan(t["LSE"][:, :8]).all()


def test_the_partials_move_once_each_way_and_the_keys_once_per_query_tile():
    w = Workload(batch=2, heads=3, seq_len_q=1, seq_len_k=1000, head_dim=64, dtype="fp16")
    s = Schedule(block_m=64, block_n=64, kv_splits=5)
    c, plain = count("flash2", w, s), count("flash2", w, s.model_copy(update={"kv_splits": 1}))
    split, combine = c.kernels
    assert (split.name, combine.name) == ("flash2_split", "flash2_combine")
    bh, n, d = w.batch_heads, s.kv_splits, w.head_dim
    assert split.bytes_by_tensor["Opart"]["write_bytes"] == bh * n * d * 4
    assert combine.bytes_by_tensor["Opart"]["read_bytes"] == bh * n * d * 4
    assert split.bytes_by_tensor["LSE"]["write_bytes"] == bh * n * 4
    assert combine.bytes_by_tensor["LSE"]["read_bytes"] == bh * n * 4
    for t in ("K", "V"):
        assert split.bytes_by_tensor[t] == plain.bytes_by_tensor[t]
    assert split.ctas == n * plain.kernels[0].ctas
    assert combine.bytes_by_tensor["O"] == plain.bytes_by_tensor["O"]


def test_the_combine_takes_rows_that_divide_the_split_tile():
    assert [combine_rows(q) for q in (1, 3, 8, 64, 128, 37, 48)] == [1, 3, 8, 16, 16, 1, 16]


def test_more_splits_than_key_blocks_is_a_one_line_error_with_the_numbers():
    w = _w(seq_len_q=1, seq_len_k=100)
    with pytest.raises(GpusimError) as e:
        FLASH2.check(w, Schedule(block_n=16, kv_splits=8))
    msg = str(e.value)
    assert "\n" not in msg and "--kv-splits 8" in msg and "7 key blocks" in msg and "100" in msg
    FLASH2.check(w, Schedule(block_n=16, kv_splits=7))


def test_other_algorithms_refuse_splits():
    with pytest.raises(GpusimError, match="does not support --kv-splits 2"):
        get_algorithm("flash1").check(_w(), Schedule(kv_splits=2))


def test_split_kernel_is_the_tensor_core_kernels_split_form():
    w = Workload(seq_len_q=1, seq_len_k=4096, dtype="bf16")
    split, combine = FLASH2.kernels(w, Schedule(kv_splits=4))
    assert split.compiled_kernel().switches == ("split",) and combine.compiled_kernel() is None
    assert FLASH2.kernels(w, Schedule())[0].compiled_kernel().switches == ()
    w32 = Workload(seq_len_q=1, seq_len_k=4096, dtype="fp32")  # flash2_simt.cu has no split
    assert FLASH2.kernels(w32, Schedule(kv_splits=4))[0].compiled_kernel() is None
