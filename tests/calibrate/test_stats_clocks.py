"""Summaries of samples and the SM clock from kernel stamps (no GPU)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpusim.calibrate.clocks import SmiSampler, clock_hz_from_stamps
from gpusim.calibrate.stats import Spread, derived, measurement

positive = st.floats(min_value=1e-9, max_value=1e3, allow_nan=False)


@given(st.lists(positive, min_size=1, max_size=50))
def test_spread_is_ordered_and_counts(samples):
    s = Spread.of(samples)
    assert s.min <= s.median <= s.max
    assert s.count == len(samples)


@given(st.lists(positive, min_size=1, max_size=20), st.floats(min_value=1.0, max_value=1e15))
def test_rates_order_reverses_times(times, work):
    rates = derived(times, work)
    assert max(rates) == pytest.approx(work / min(times))
    m = measurement(rates, "B/s", "test")
    assert m["value"] == m["median"]
    assert m["unit"] == "B/s"


def test_empty_and_nonpositive_samples_are_rejected():
    with pytest.raises(ValueError):
        Spread.of([])
    with pytest.raises(ValueError):
        derived([1.0, 0.0], 1.0)


@given(
    st.floats(min_value=2e8, max_value=3e9),
    st.lists(st.integers(min_value=1_000_000, max_value=50_000_000), min_size=1, max_size=16),
)
def test_clock_from_stamps_recovers_the_clock(hz, durations_ns):
    stamps = []
    for i, ns in enumerate(durations_ns):
        clk0, ns0 = 1000 * i, 5_000 + i
        stamps += [clk0, clk0 + round(hz * ns / 1e9), ns0, ns0 + ns]
    clock = clock_hz_from_stamps(stamps)
    assert clock["median_hz"] == pytest.approx(hz, rel=1e-5)  # cycles are whole numbers
    assert clock["blocks"] == len(durations_ns)


def test_short_blocks_are_ignored_and_all_short_is_an_error():
    long_block = [0, 2_000_000, 0, 1_000_000]  # 2 GHz over 1 ms
    short_block = [0, 10, 0, 10]
    assert clock_hz_from_stamps(long_block + short_block)["blocks"] == 1
    with pytest.raises(ValueError):
        clock_hz_from_stamps(short_block)
    with pytest.raises(ValueError):
        clock_hz_from_stamps([1, 2, 3])


def test_sampler_window_summarises_only_samples_inside():
    s = SmiSampler()
    s.samples = [
        (1.0, {"clocks.sm": "1980", "power.draw": "300.5"}),
        (2.0, {"clocks.sm": "1755", "power.draw": "690", "clocks_event_reasons.active": "0x4"}),
        (9.0, {"clocks.sm": "345", "power.draw": "80"}),
    ]
    w = s.window(0.5, 2.5)
    assert w["samples"] == 2
    assert w["sm_clock_mhz"] == {"min": 1755.0, "median": 1867.5, "max": 1980.0}
    assert w["clock_event_reasons"] == ["0x4"]


class _Cp:
    """Just enough of CuPy for the clock loops: ``asnumpy`` of the stamps."""

    @staticmethod
    def asnumpy(x):
        import numpy as np

        return np.asarray(x)


class _Flush:
    def __init__(self):
        self.fills: list[int] = []

    def fill(self, value: int) -> None:
        self.fills.append(value)


def test_the_protocol_flushes_before_every_launch_and_keeps_the_timed_medians():
    from gpusim.calibrate.clocks import protocol_clocks

    # one block, 2.0e6 cycles in 1.0e6 ns: 2 GHz; the launches take 1, 2, ... ms
    stamps = [0, 2_000_000, 0, 1_000_000]
    times = iter(range(1, 10))
    flush = _Flush()
    run = protocol_clocks(_Cp, lambda: float(next(times)), stamps, flush, 2, 3, idle_s=0.0)
    assert flush.fills == [0, 1, 2, 3, 4]
    assert [r["timed"] for r in run["launches"]] == [False, False, True, True, True]
    assert run["median_ms"] == 4.0 and run["median_clock_hz"] == 2e9


def test_sustained_launches_run_for_the_seconds_asked():
    from gpusim.calibrate.clocks import sustained_clocks

    rows = sustained_clocks(_Cp, lambda: 1.0, [0, 3_000_000, 0, 1_000_000], seconds=0.02)
    assert rows and all(r["clock_hz"] == 3e9 and r["ms"] == 1.0 for r in rows)
    assert [r["t_s"] for r in rows] == sorted(r["t_s"] for r in rows)
    assert sustained_clocks(_Cp, lambda: 1.0, [0, 1, 0, 1], seconds=0.0) == []
