"""The sampled long-context switch instances (data/sm90/2026-12-04_switch_loops) against their
base instances, as the SM core model replays them (the committed table holds both)."""

from __future__ import annotations

import statistics

import pytest

from algorithms import get_algorithm
from gpusim.engine import core_table
from gpusim.engine.switch_replay import switch_source
from gpusim.kernel_catalog.loop_counts import switch_bases, switch_loop_paths
from gpusim.kernels.switch_loops import sample_instances
from gpusim.schedule import Schedule
from gpusim.workload import Workload


@pytest.fixture(scope="module")
def ratios() -> list[float]:
    """Switch instance's cycles per step over its base's, at every CTA count both hold."""
    steps = core_table._table()["step_cycles"]
    out = []
    for key, base in switch_bases().items():
        for n in (1, 2, 3, 4):
            a, b = (steps.get(core_table.entry_key(k, n)) for k in (key, base))
            if a is not None and b is not None:
                out.append(a / b - 1)
    return out


def test_the_recorded_sample_is_the_modules():
    keys = [i.key for i in sample_instances()]
    assert sorted(switch_loop_paths()) == sorted(keys) and len(keys) == 84
    assert all(switch_bases()[i.key] == i.base().key for i in sample_instances())


def test_switch_steps_stay_near_their_bases(ratios):
    """What the timing source of a switch instance without a loop of its own quotes:
    -28 .. +27 %, mean absolute 2.5 % (154 launches; the outliers are instances the compiler
    treats differently: d128 64x128 split +27 %, d64 64x128 packed -28 % at one CTA)."""
    assert len(ratios) == 154
    assert min(ratios) > -0.28 and max(ratios) < 0.27
    assert statistics.mean(abs(r) for r in ratios) < 0.025


def test_a_switch_kernel_says_when_it_replays_its_base():
    w = Workload(heads=8, heads_kv=2, seq_len_q=1, seq_len_k=8192, dtype="bf16", causal=True)
    sampled = get_algorithm("flash2").kernels(w, Schedule(block_m=64, block_n=64, kv_splits=2))
    assert switch_source(sampled[0]) is None  # gqa+split of 64x64 d128 w4 s2: in the sample
    s = Schedule(block_m=64, block_n=64, kv_splits=2, pack_gqa=True)
    (k, _combine) = get_algorithm("flash2").kernels(w, s)
    assert "committed loop of tc_bf16_d128_m64_n64_w4_s2," in switch_source(k)
