"""time_schedules goes on after a pair whose launch or allocation fails (no GPU needed)."""

from __future__ import annotations

import numpy as np

from gpusim.errors import GpusimError
from gpusim.kernels import schedule_timing as timing
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class _FakeCp:
    """Just enough of CuPy for random inputs and a poisoned output."""

    float16 = np.float16
    float32 = np.float32
    uint16 = np.uint16

    def __init__(self):
        self.random = np.random

    def empty_like(self, a):
        return np.empty_like(a)


class _Loaded:
    def attributes(self):
        return {"num_regs": 1}


class _Runner:
    """Pair 1 has no instance, pair 2 fails to launch (as out of memory), pair 3 runs."""

    def __init__(self):
        self.cp = _FakeCp()
        self.calls = 0

    def instance(self, w, s):
        if s.block_m == 16:
            raise GpusimError("no instance for Br16")
        return type("I", (), {"key": f"k{s.block_m}", "block_m": s.block_m})()

    def load(self, inst):
        return _Loaded()

    def split_workspace(self, w, s):
        return None

    def check_arrays(self, *a):
        pass

    def launch(self, loaded, w, q, k, v, o, split=None):
        self.calls += 1


def test_a_failed_launch_is_recorded_and_the_next_pair_runs(monkeypatch):
    w = Workload(batch=1, heads=1, seq_len_q=64, seq_len_k=64, head_dim=64)
    pairs = [(w, Schedule(block_m=16)), (w, Schedule(block_m=32)), (w, Schedule(block_m=64))]

    def fake_time(cp, launch, repeats, warmup, flush):
        if fake_time.calls == 0:
            fake_time.calls += 1
            raise MemoryError("out of memory allocating 8 GiB")
        launch()
        return [1e-3, 2e-3, 3e-3]

    fake_time.calls = 0
    monkeypatch.setattr(timing, "time_launches", fake_time)
    monkeypatch.setattr(timing, "random_inputs", lambda cp, w, seed=0: (np.zeros(4),) * 3)
    recs = timing.time_schedules(pairs, runner=_Runner(), flush_l2=False)
    assert [("error" in r, r.get("median_s")) for r in recs] == [
        (True, None),
        (True, None),
        (False, 2e-3),
    ]
    assert recs[0]["error"] == "no instance for Br16"
    assert recs[1]["error"].startswith("MemoryError: out of memory")
