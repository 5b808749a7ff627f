"""The DRAM chases evict the L2 after building their chains (gpusim/calibrate/latency.py):
the eviction writes several times the device's L2, through whatever array module it is given."""

from __future__ import annotations

import types

import numpy as np

from gpusim.calibrate import latency


class _Device:
    def __init__(self, l2: int, log: list) -> None:
        self.attributes = {"L2CacheSize": l2}
        self.log = log

    def synchronize(self) -> None:
        self.log.append("sync")


def _fake_cp(l2: int, log: list):
    """numpy standing in for CuPy: arrays made and filled, the device's L2 size reported."""

    def empty(n, dtype):
        log.append(("empty", n))
        return np.empty(n, dtype=dtype)

    cuda = types.SimpleNamespace(Device=lambda: _Device(l2, log))
    return types.SimpleNamespace(empty=empty, uint32=np.uint32, cuda=cuda)


def test_the_eviction_writes_four_l2s_and_waits_for_it():
    log: list = []
    nbytes = latency.evict_l2(_fake_cp(126 << 20, log))  # a B200's L2
    assert nbytes == 4 * (126 << 20)
    assert ("empty", nbytes // 4) in log and log[-1] == "sync"


def test_a_small_l2_still_gets_the_minimum():
    log: list = []
    assert latency.evict_l2(_fake_cp(4 << 20, log)) == latency.EVICT_MIN_BYTES


def test_both_dram_chains_are_evicted_before_they_are_chased():
    """The order in run(): build the chain, evict, then chase (read from the source, since the
    chase needs a GPU)."""
    import inspect

    src = inspect.getsource(latency.run)
    strided = src.index("_strided_chain(")
    random_ = src.index("_random_chain(cp, dram_bytes")
    evictions = [i for i in range(len(src)) if src.startswith("evict_l2(cp)", i)]
    assert any(strided < e < src.index("_chase(", strided) for e in evictions)
    assert any(random_ < e < src.index("_chase(", random_) for e in evictions)
