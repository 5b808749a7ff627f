"""Atomic adds at the L2's measured rate: flash2's backward (its dQ) pays it, nothing else."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.profiles import load_profile
from gpusim.profiles.gaps import l2_atomic_cost
from gpusim.profiles.schema import Sourced
from gpusim.schedule import Schedule
from gpusim.workload import Workload

H200 = load_profile("h200-sxm")
S = Schedule(block_m=64, block_n=128, warps=8, stages=2)


def _with_rate(share: float):
    """H200 whose L2 takes atomic adds at ``share`` of its bandwidth."""
    rate = Sourced[float](
        value=H200.l2_bandwidth_bytes_per_s.value * share, source="a test's assumption"
    )
    return H200.model_copy(update={"l2_atomic_add_bytes_per_s": rate})


def _w(pass_: str = "bwd", **kw) -> Workload:
    base = dict(batch=2, heads=8, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    return Workload(**(base | kw), pass_=pass_)


def test_the_cost_is_the_bandwidth_over_the_rate():
    assert l2_atomic_cost(H200) == 1.0  # not measured: a plain write
    assert l2_atomic_cost(_with_rate(0.25)) == pytest.approx(4.0)


def test_at_the_write_bandwidth_nothing_moves():
    w = _w()
    assert (
        simulate("flash2", w, S, _with_rate(1.0)).runtime_s
        == simulate("flash2", w, S, H200).runtime_s
    )


@pytest.mark.parametrize("causal", [False, True])
def test_slower_atomics_slow_the_backward_and_only_its_l2_time(causal):
    w = _w(causal=causal)
    base = simulate("flash2", w, S, H200)
    slow = simulate("flash2", w, S, _with_rate(0.1))
    assert slow.runtime_s > base.runtime_s
    # The same bytes: the adds hold the L2 longer, they do not move more data.
    assert slow.global_write_bytes == base.global_write_bytes
    assert slow.dram_write_bytes == base.dram_write_bytes


@pytest.mark.parametrize(("algorithm", "pass_"), [("flash2", "fwd"), ("standard", "bwd")])
def test_runs_without_atomic_adds_are_unchanged(algorithm, pass_):
    w = _w(pass_, seq_len_q=1024, seq_len_k=1024)
    s = S if algorithm == "flash2" else Schedule(block_m=64, block_n=64, warps=4, stages=2)
    assert (
        simulate(algorithm, w, s, _with_rate(0.1)).runtime_s
        == simulate(algorithm, w, s, H200).runtime_s
    )
