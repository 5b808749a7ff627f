"""The DRAM model of a simulation: the engine's tile L2, or the K/V trace of record through
the Python API (``dram_model="kv-trace"``), never one for the other."""

from __future__ import annotations

import pytest

import gpusim
from gpusim.api.dram_model import check_dram_model
from gpusim.engine.kv_trace_l2 import kv_trace_of_record
from gpusim.engine.rates import rates_for
from gpusim.errors import GpusimError
from gpusim.profiles import load_profile

W = gpusim.Workload(batch=1, heads=8, seq_len_q=16384, seq_len_k=16384, head_dim=128,
                    dtype="bf16", causal=True)  # fmt: skip
S = gpusim.Schedule(block_m=128, block_n=64, warps=4, stages=2)


def test_kv_trace_gives_the_trace_of_records_bytes_at_the_engines_runtime():
    tile = gpusim.simulate("flash2", W, S, "h200-sxm")
    kv = gpusim.simulate("flash2", W, S, "h200-sxm", dram_model="kv-trace")
    assert (tile.dram_model, kv.dram_model) == ("tile-l2", "kv-trace")
    assert kv.runtime_s == tile.runtime_s
    rates = rates_for(load_profile("h200-sxm"), "bf16", 4)
    t = kv_trace_of_record(W, S, rates, tile.ctas_per_sm, tile.runtime_s)
    assert kv.dram_read_bytes == t.result.dram_read_bytes
    assert kv.kernels[0].counters.dram_read_bytes == t.result.dram_read_bytes
    assert kv.dram_model_detail["tile_l2_dram_read_bytes"] == tile.dram_read_bytes
    d = kv.to_json_dict()
    assert d["dram_model"] == "kv-trace" and d["dram_read_bytes"] == t.result.dram_read_bytes


@pytest.mark.parametrize(
    ("algorithm", "schedule", "profile", "message"),
    [
        ("flash1", S, "h200-sxm", "flash2's forward kernel, not flash1"),
        ("flash2", S.model_copy(update={"kv_splits": 2}), "h200-sxm", "2 kernels"),
        ("flash2", S, "h200-sxm-datasheet", "needs the profile's l2_loss_by_depth"),
    ],
)
def test_kv_trace_refuses_what_it_does_not_model(algorithm, schedule, profile, message):
    with pytest.raises(GpusimError, match=message) as e:
        gpusim.simulate(algorithm, W, schedule, profile, dram_model="kv-trace")
    assert "\n" not in str(e.value)


def test_unknown_dram_model():
    with pytest.raises(ValueError, match="known: tile-l2, kv-trace"):
        check_dram_model("lru")
    with pytest.raises(GpusimError, match="unknown DRAM model"):
        gpusim.simulate("flash2", W, S, dram_model="lru")
