"""A CTA group's meeting with the L2: the one-run path of the detailed engine is the general
path's arithmetic, to the bit."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.engine.cta_group import CtaGroup
from gpusim.engine.cta_l2 import L2Meeting
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload
from tests.engine.conftest import small_gpu


@pytest.mark.parametrize(
    ("causal", "heads_kv", "seq_len_k"), [(True, 4, 640), (False, 2, 608), (True, 1, 700)]
)
def test_the_one_run_lookup_gives_what_the_runs_lookup_gives(monkeypatch, causal, heads_kv,
                                                             seq_len_k):  # fmt: skip
    # A calibrated profile (loss curve, fill latency) on a few SMs, so that K/V tiles miss,
    # hit and are partly lost; GQA groups and ragged last blocks.
    profile = small_gpu(load_profile("h200-sxm"), sms=6)
    w = Workload(batch=2, heads=4, heads_kv=heads_kv, seq_len_q=576, seq_len_k=seq_len_k,
                 head_dim=64, dtype="bf16", causal=causal)  # fmt: skip
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    fast = simulate("flash2", w, s, profile, detail="full")
    monkeypatch.setattr(CtaGroup, "_lookup_reads", L2Meeting._lookup_reads_runs)
    plain = simulate("flash2", w, s, profile, detail="full")
    assert fast.runtime_s == plain.runtime_s
    assert fast.dram_read_bytes == plain.dram_read_bytes
    assert fast.counters == plain.counters
