"""GQA/MQA (K/V per K/V head, packed heads) and the K/V walk's direction."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import ALGORITHMS, get_algorithm
from algorithms.numeric import random_inputs, reference, rel_err, run
from algorithms.tracing import program_for, trace_classes, trace_cta
from gpusim.counting import count
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

FLASH2 = get_algorithm("flash2")


@pytest.mark.parametrize("name", list(ALGORITHMS))
@settings(max_examples=8, deadline=None)
@given(
    nq=st.integers(1, 30),
    nk=st.integers(1, 30),
    heads_kv=st.sampled_from([1, 2]),
    causal=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_grouped_heads_are_exact(name, nq, nk, heads_kv, causal, seed):
    w = Workload(
        batch=2, heads=4, heads_kv=heads_kv, seq_len_q=nq, seq_len_k=nk, head_dim=16,
        dtype="fp64", causal=causal,
    )  # fmt: skip
    s = Schedule(block_m=1 if name == "flash-naive-qkv" else 8, block_n=8)
    inputs = random_inputs(w, seed)
    assert inputs["K"].shape[0] == w.batch_heads_kv
    assert rel_err(run(ALGORITHMS[name], w, s, inputs), reference(w, inputs)) < 1e-12


@settings(max_examples=30, deadline=None)
@given(
    nq=st.integers(1, 30),
    nk=st.integers(1, 60),
    group=st.sampled_from([2, 4]),
    rows=st.sampled_from([1, 2, 4]),
    splits=st.sampled_from([1, 3]),
    causal=st.booleans(),
    backward=st.booleans(),
)
def test_packed_heads_are_exact(nq, nk, group, rows, splits, causal, backward):
    w = Workload(
        batch=2, heads=4, heads_kv=4 // group, seq_len_q=nq, seq_len_k=nk, head_dim=16,
        dtype="fp64", causal=causal,
    )  # fmt: skip
    splits = min(splits, -(-nk // 4))
    order = "backward" if backward else "forward"
    s = Schedule(block_m=rows * group, block_n=4, pack_gqa=True, kv_splits=splits, kv_order=order)
    inputs = random_inputs(w, nq * 61 + nk)
    out = run(FLASH2, w, s, inputs)
    assert np.isfinite(out).all()
    assert rel_err(out, reference(w, inputs)) < 1e-12


def test_a_packed_tile_holds_the_groups_queries_query_major():
    w = Workload(batch=1, heads=8, heads_kv=2, seq_len_q=1, seq_len_k=64, head_dim=16)
    (k,) = FLASH2.kernels(w, Schedule(block_m=16, block_n=64, pack_gqa=True))
    assert (k.grid_batch_heads, k.blocks_per_bh(), k.num_ctas) == (2, 1, 2)
    prog = trace_cta(k, 1, 0)
    q = [a for s in prog.steps for a in s.reads if a.tensor == "Q"]
    assert [a.bh for a in q] == [4, 5, 6, 7]  # K/V head 1 serves query heads 4..7
    assert {a.nbytes for a in q} == {16 * w.elem_bytes}  # one real query row each
    kv = {a.bh for s in prog.steps for a in s.reads if a.tensor in ("K", "V")}
    assert kv == {1}


def test_gqa_counts_kv_per_query_head_and_packing_reads_it_once_per_group():
    w = Workload(batch=2, heads=8, heads_kv=2, seq_len_q=1, seq_len_k=512, head_dim=64)
    kv_bytes = 2 * w.seq_len_k * w.head_dim * w.elem_bytes
    plain = count("flash2", w, Schedule(block_m=64, block_n=64))
    packed = count("flash2", w, Schedule(block_m=64, block_n=64, pack_gqa=True))
    plain_kv, packed_kv = (
        sum(c.bytes_by_tensor[t]["read_bytes"] for t in "KV") for c in (plain, packed)
    )
    assert plain_kv == w.batch_heads * kv_bytes
    assert packed_kv == w.batch_heads_kv * kv_bytes
    assert plain.flops == packed.flops
    assert packed.executed_mma_flops * 4 == plain.executed_mma_flops  # 4 rows of 64 used


def test_executed_flops_count_the_padded_rows():
    w = Workload(batch=1, heads=2, seq_len_q=1, seq_len_k=1024, head_dim=128)
    c = count("flash2", w, Schedule(block_m=64, block_n=64))
    assert c.executed_mma_flops == 64 * c.flops and c.executed_per_useful_flop == 64


@pytest.mark.parametrize(
    "s",
    [
        Schedule(block_m=8, block_n=8),
        Schedule(block_m=8, block_n=8, pack_gqa=True),
        Schedule(block_m=8, block_n=8, pack_gqa=True, kv_splits=3, kv_order="backward"),
        Schedule(block_m=8, block_n=8, kv_splits=2),
    ],
    ids=str,
)
@pytest.mark.parametrize("causal", [False, True])
def test_every_cta_is_its_class_relabelled_with_grouped_heads(s, causal):
    w = Workload(batch=2, heads=4, heads_kv=2, seq_len_q=19, seq_len_k=37, head_dim=16,
                 causal=causal)  # fmt: skip
    for kernel in FLASH2.kernels(w, s):
        for cls in trace_classes(kernel):
            for bh in range(kernel.grid_batch_heads):
                for block in cls.blocks:
                    assert program_for(kernel, cls, bh, block) == trace_cta(kernel, bh, block)


def test_backward_walks_from_the_diagonal_down_and_moves_the_same_bytes():
    w = Workload(batch=1, heads=1, seq_len_q=256, seq_len_k=256, head_dim=64, causal=True)
    fwd, bwd = (Schedule(block_m=64, block_n=32, kv_order=o) for o in ("forward", "backward"))
    (kf,), (kb,) = FLASH2.kernels(w, fwd), FLASH2.kernels(w, bwd)
    rows = [
        [a.row0 for s in trace_cta(k, 0, 3).expanded().steps for a in s.reads if a.tensor == "K"]
        for k in (kf, kb)
    ]
    assert rows[0] == list(range(0, 256, 32)) and rows[1] == rows[0][::-1]
    a, b = count("flash2", w, fwd), count("flash2", w, bwd)
    assert (a.global_read_bytes, a.executed_mma_flops) == (
        b.global_read_bytes,
        b.executed_mma_flops,
    )
    # the tensor-core kernel's backward-walk switch instance (w is fp16 by default)
    assert kb.compiled_kernel().switches == ("kv_backward",) and kf.compiled_kernel().switches == ()


@pytest.mark.parametrize(
    ("w", "s", "fragment"),
    [
        (Workload(heads=8), Schedule(pack_gqa=True), "--pack-gqa needs grouped K/V heads"),
        (
            Workload(heads=8, heads_kv=2),
            Schedule(block_m=6, pack_gqa=True),
            "--block-m 6 must be a multiple of 4",
        ),
    ],
)
def test_packing_that_cannot_be_honoured_is_refused(w, s, fragment):
    with pytest.raises(GpusimError, match=fragment):
        FLASH2.check(w, s)


def test_grouped_heads_name_the_tensor_core_switch_instance():
    w = Workload(heads=8, heads_kv=2, dtype="bf16")
    got = [FLASH2.kernels(w, s)[0].compiled_kernel() for s in (Schedule(), Schedule(pack_gqa=True))]
    assert [k.switches for k in got] == [("gqa",), ("gqa", "pack")]
    # the fp32 kernel has no switches: no compiled instance runs grouped heads there
    w32 = Workload(heads=8, heads_kv=2, dtype="fp32")
    assert FLASH2.kernels(w32, Schedule())[0].compiled_kernel() is None
