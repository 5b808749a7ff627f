"""The step efficiency by CTA grouping: read where the profile has it for the kernel's warps per
CTA, interpolated by CTAs per SM; the per-scheduler rule otherwise."""

from __future__ import annotations

import pytest

from gpusim.api import simulate
from gpusim.engine.cta_grouping import FIELD, at_count, launch_efficiency
from gpusim.engine.rates import step_efficiency
from gpusim.profiles.loader import load_profile
from gpusim.profiles.schema import SourcedRateTable
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def with_table(table: dict) -> object:
    base = load_profile("h100-sxm5")
    return base.model_copy(update={FIELD: SourcedRateTable(value=table, source="a test")})


def test_between_and_beyond_the_measured_counts():
    rows = [(1, 0.7), (2, 0.9), (4, 1.1)]
    assert at_count(rows, 1) == 0.7 and at_count(rows, 3) == pytest.approx(1.0)
    assert at_count(rows, 6) == 1.1 and at_count(rows, 0.5) == 0.7


def test_other_warps_keep_the_per_scheduler_rule():
    p = with_table({"4": [[1, 0.7], [2, 1.05]]})
    assert launch_efficiency(p, 2, 4) == 1.05
    assert launch_efficiency(p, 2, 8) == step_efficiency(p, 16)
    base = load_profile("h100-sxm5")
    assert launch_efficiency(base, 2, 4) == step_efficiency(base, 8)


def test_a_faster_grouping_gives_a_shorter_prefill():
    w = Workload(batch=1, heads=16, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    base = load_profile("h100-sxm5")
    one, two = step_efficiency(base, 4), step_efficiency(base, 8)
    slow = simulate("flash2", w, s, with_table({"4": [[1, one], [2, two], [4, 1.0]]}))
    fast = simulate("flash2", w, s, with_table({"4": [[1, one], [2, two * 1.1], [4, 1.1]]}))
    same = simulate("flash2", w, s, base)
    assert slow.runtime_s == pytest.approx(same.runtime_s, rel=1e-9)
    assert fast.runtime_s < 0.97 * slow.runtime_s


def test_a_table_without_the_kernels_warps_says_so():
    w = Workload(batch=1, heads=16, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    s = Schedule(block_m=128, block_n=64, warps=8, stages=2)
    r = simulate("flash2", w, s, with_table({"4": [[1, 0.7], [2, 1.0]]}))
    notes = [k.timing_note for k in r.kernels if k.timing_note]
    assert any("has CTAs of 4 warps, not 8" in n for n in notes)
    assert not [k for k in simulate("flash2", w, s, load_profile("h100-sxm5")).kernels
                if k.timing_note]  # fmt: skip
