"""The kernel sequence: a whole launch before the first kernel, the queued launch between
kernels."""

from __future__ import annotations

import pytest

from gpusim.engine import simulate
from gpusim.profiles import load_profile
from gpusim.profiles.schema import Sourced
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _with_queued(profile, seconds: float | None):
    q = None if seconds is None else Sourced[float](value=seconds, source="test: queued launch")
    return profile.model_copy(update={"kernel_queued_launch_s": q})


@pytest.mark.parametrize("splits", [1, 4])
def test_only_later_kernels_are_charged_the_queued_launch(splits):
    base = load_profile("h200-sxm")
    launch = base.kernel_launch_overhead_s.value
    w = Workload(batch=2, heads=8, seq_len_q=1, seq_len_k=4096, head_dim=128, dtype="bf16")
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2, kv_splits=splits)
    whole = simulate("flash2", w, s, _with_queued(base, None))
    queued = simulate("flash2", w, s, _with_queued(base, 1e-6))
    assert len(whole.kernels) == (2 if splits > 1 else 1)
    # The kernels themselves are the same; only the gaps between them move.
    assert [k.duration_s for k in queued.kernels] == [k.duration_s for k in whole.kernels]
    saved = (len(whole.kernels) - 1) * (launch - 1e-6)
    assert whole.runtime_s - queued.runtime_s == pytest.approx(saved, rel=1e-6, abs=1e-12)
