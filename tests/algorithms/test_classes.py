"""CTA classes are sound: every CTA's program is its class representative's, relabelled."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import ALGORITHMS
from algorithms.tracing import program_for, trace_classes, trace_cta
from gpusim.schedule import Schedule
from gpusim.workload import Workload


@pytest.mark.parametrize("name", list(ALGORITHMS))
@settings(max_examples=15, deadline=None)
@given(
    nq=st.integers(1, 40),
    nk=st.integers(1, 40),
    block_m=st.sampled_from([4, 8, 16]),
    block_n=st.sampled_from([4, 8, 16]),
    causal=st.booleans(),
    stages=st.sampled_from([1, 2]),
)
def test_every_cta_is_its_class_relabelled(name, nq, nk, block_m, block_n, causal, stages):
    w = Workload(batch=1, heads=2, seq_len_q=nq, seq_len_k=nk, head_dim=16, causal=causal)
    block_m = 1 if name == "flash-naive-qkv" else block_m
    s = Schedule(block_m=block_m, block_n=block_n, stages=stages)
    for kernel in ALGORITHMS[name].kernels(w, s):
        for cls in trace_classes(kernel):
            for bh in range(w.batch_heads):
                for block in cls.blocks:
                    assert program_for(kernel, cls, bh, block) == trace_cta(kernel, bh, block)
