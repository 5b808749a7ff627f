"""The barrier microbenchmark's reduction, on a stand-in for CuPy (the GPU part runs on the
device): one count per SM, checked and reduced on the host."""

import numpy as np
import pytest

from gpusim.calibrate import barrier_cost


class _Out:
    def __init__(self, n):
        self.a = np.zeros(n, dtype=np.int64)

    def fill(self, v):
        self.a[:] = v

    def get(self):
        return self.a.copy()


class _FakeCp:
    """Enough of CuPy for measure(): SMs write (base + extra with a barrier) x iters cycles."""

    __version__ = "fake"
    int32 = np.int32
    float32 = np.float32
    int64 = np.int64

    def __init__(self, sms=4, silent_sm=None):
        self.sms, self.silent_sm = sms, silent_sm
        self.cuda = type("cuda", (), {})()
        self.cuda.runtime = type("rt", (), {
            "getDeviceProperties": staticmethod(lambda _d: {"multiProcessorCount": sms,
                                                            "name": b"fake"}),
            "runtimeGetVersion": staticmethod(lambda: 1),
            "driverGetVersion": staticmethod(lambda: 1),
        })()  # fmt: skip
        self.cuda.Device = lambda *_a: type("d", (), {"id": 0})()

    def zeros(self, n, dtype):
        return _Out(n)

    def RawKernel(self, _src, _name):
        def launch(grid, block, args):
            out, _sink, iters, sync = args
            warps = block[0] // 32
            out.a[:] = [(10 + (8 + 2 * warps) * int(sync) + sm % 2) * int(iters)
                        for sm in range(self.sms)]  # fmt: skip
            if self.silent_sm is not None:
                out.a[self.silent_sm] = -1

        return launch


def test_the_median_over_the_sms_gives_the_barriers_cycles():
    doc = barrier_cost.measure(_FakeCp(), quick=True)
    rows = doc["by_warps_per_cta"]
    assert rows["1"]["cycles_per_iteration_without_barrier"] == pytest.approx(10.5)
    assert rows["4"]["barrier_cycles"] == pytest.approx(16.0)
    assert barrier_cost.fit(doc) == pytest.approx((8.0, 2.0))


def test_an_sm_that_wrote_no_count_is_an_error():
    with pytest.raises(RuntimeError, match="a CTA wrote no cycle count"):
        barrier_cost.measure(_FakeCp(silent_sm=2), quick=True)
