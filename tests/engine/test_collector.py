"""The engine's fewer collections (collector.py): thresholds back afterwards, results the same."""

from __future__ import annotations

import gc

import pytest

from gpusim.engine import collector, simulate
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def test_the_thresholds_are_raised_inside_and_put_back_after_an_error():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), collector.fewer_collections():
        assert gc.get_threshold()[0] == collector.YOUNG_THRESHOLD
        assert gc.get_threshold()[1:] == before[1:]
        raise RuntimeError
    assert gc.get_threshold() == before


def test_a_caller_who_turned_collection_off_keeps_it_off():
    before = gc.get_threshold()
    gc.set_threshold(0)
    try:
        with collector.fewer_collections():
            assert gc.get_threshold()[0] == 0
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)


def test_a_simulation_is_the_same_whenever_the_collector_runs(monkeypatch):
    w = Workload(batch=2, heads=8, seq_len_q=1024, seq_len_k=1024, head_dim=64, causal=True)
    s = Schedule(block_m=128, block_n=64, warps=4, stages=2)
    p = load_profile("h200-sxm")
    fewer = simulate("flash2", w, s, p)
    # Below CPython's default of 700: the run keeps the default, a young pass every 700.
    monkeypatch.setattr(collector, "YOUNG_THRESHOLD", 1)
    often = simulate("flash2", w, s, p)
    assert (fewer.runtime_s, fewer.dram_read_bytes, fewer.events) == (
        often.runtime_s,
        often.dram_read_bytes,
        often.events,
    )
