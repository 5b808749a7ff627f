"""The tuner's launches spread over processes give the ranking of one process, launch by launch."""

from __future__ import annotations

from gpusim.tuning.tuner import tune
from gpusim.workload import Workload

W = Workload(batch=1, heads=8, seq_len_q=2048, seq_len_k=2048, head_dim=64, dtype="fp16")


def test_two_processes_rank_as_one(h200):
    from gpusim.engine import simulate

    small = W.model_copy(update={"seq_len_q": 256, "seq_len_k": 256})
    serial = tune("flash2", small, h200, simulate=simulate, jobs=1)
    seen: list[tuple[int, int]] = []
    forked = tune(
        "flash2", small, h200, simulate=simulate, jobs=2, on_done=lambda d, t: seen.append((d, t))
    )
    assert [c.to_dict() for c in forked.candidates] == [c.to_dict() for c in serial.candidates]
    assert [r.to_dict() for r in forked.rejected] == [r.to_dict() for r in serial.rejected]
    # progress: every launch reported once, the full launches and the capped ones
    total = seen[-1][1]
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert total > len(serial.candidates)  # some schedules were also tried with fewer CTAs/SM
