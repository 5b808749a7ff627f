"""The clock diagnostics' shared protocol (CPU: a stand-in call, nvidia-smi absent or not)."""

from __future__ import annotations

from gpusim.validation import torch_fwd_clock


def test_the_protocol_warms_up_then_times_and_summarises(monkeypatch):
    monkeypatch.setattr(torch_fwd_clock.time, "sleep", lambda _s: None)
    times: list[float] = []
    calls = [0]

    def one() -> None:
        calls[0] += 1
        times.append(float(calls[0]))

    got = torch_fwd_clock.under_protocol(one, times, 0.01)
    # the three warm-up calls are dropped; every timed call is kept, in order
    assert got["calls"] == len(got["ms"]) >= 1 and got["ms"][0] == 4.0
    assert got["ms_median_first20"] is not None and got["ms_median_all"] is not None
    assert set(got) == {"calls", "ms_median_first20", "ms_median_all", "ms",
                        "sm_clock_mhz_median", "sm_clock_mhz_min", "power_w_median",
                        "samples", "error"}  # fmt: skip
