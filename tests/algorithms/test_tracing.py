"""Shared-memory traffic the tracer charges: fills apart, and values kept in registers."""

from __future__ import annotations

import pytest

from algorithms import get_algorithm
from gpusim.counting import MAX_TRACED_STEPS, traced_classes
from gpusim.engine.rates import rates_for
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

W = Workload(
    batch=1, heads=1, seq_len_q=256, seq_len_k=1024, head_dim=64, dtype="fp16", causal=False
)
S = Schedule(block_m=64, block_n=128, warps=4, stages=2)


def _program(algorithm: str, name: str):
    k = next(k for k in get_algorithm(algorithm).kernels(W, S) if k.name == name)
    return traced_classes(k, [MAX_TRACED_STEPS])[0].program


def test_row_softmax_touches_shared_memory_as_its_kernel_does():
    # row_softmax.cu, per element: the fill of S, then one read and one write (exp, sum on
    # the way), then one read (normalised and stored from registers). The max and the sum
    # need no pass of their own; P goes to global memory without a write-back.
    t = _program("standard", "softmax_row").totals()
    elems = W.seq_len_k
    fill = elems * W.elem_bytes
    assert t["smem_fill_bytes"] == fill
    assert t["smem_bytes"] == fill + elems * 4 * 3


def test_tile_loads_are_fills():
    for step in _program("flash2", get_algorithm("flash2").kernels(W, S)[0].name).steps:
        loaded = sum(a.nbytes for a in step.reads)
        assert step.smem_fill_bytes >= loaded  # padded rows land too
        assert step.smem_fill_bytes <= step.smem_bytes


def test_fills_charge_the_lane_at_the_profile_cost():
    cal = rates_for(load_profile("h200-sxm"), "fp16")
    full = rates_for(load_profile("h200-sxm-datasheet"), "fp16")
    assert cal.work(0, 0, 0, 1000, 400)["smem"] == 600  # measured cost 0: fills are free
    assert full.work(0, 0, 0, 1000, 400)["smem"] == 1000


def test_atomic_adds_go_only_to_the_tensors_the_engine_knows_as_atomic():
    from algorithms.base import ATOMIC_TENSORS
    from algorithms.tracing import TracingMachine

    w = Workload(batch=1, heads=1, seq_len_q=64, seq_len_k=64, head_dim=64, dtype="fp16")
    kernel = get_algorithm("flash2").kernels(w, Schedule(block_m=64, block_n=64))[0]
    tm = TracingMachine(kernel)
    tile = tm.load("Q", 0, 0, 64)
    with pytest.raises(ValueError, match="atomic adds go to"):
        tm.store_add("O", 0, 0, tile)
    tm.store_add(ATOMIC_TENSORS[0], 0, 0, tile)  # the backward's dQ accumulator
