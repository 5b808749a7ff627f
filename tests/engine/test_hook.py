"""User SimPy processes beside the kernels (gpusim/engine/hook.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusim.engine import simulate
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload
from tests.engine.conftest import inputs, small_gpu

#: A DRAM-bound kernel: the online softmax over a materialised score matrix.
ALG, KERNEL = "softmax-online", "softmax_online"
WINDOW_S = 1e-6
STEP_S = 10e-9  # how often the throttling process checks that DRAM is in use


def _throttle(fraction: float, log: list[bool]):
    """From the kernel's first DRAM transfer on, leave it ``fraction`` of DRAM for 1 us.

    ``log`` gets, every 10 ns of the window, whether DRAM had transfers in flight.
    """

    def process(gpu):
        name = None
        while name != KERNEL:
            name = yield gpu.kernel_started()
        while gpu.transfers_in_flight("dram") == 0:
            yield gpu.env.timeout(gpu.ticks(STEP_S))
        gpu.set_bandwidth_fraction("dram", fraction)
        for _ in range(round(WINDOW_S / STEP_S)):
            log.append(gpu.transfers_in_flight("dram") > 0)
            yield gpu.env.timeout(gpu.ticks(STEP_S))
        gpu.set_bandwidth_fraction("dram", 1.0)

    return process


def test_half_the_dram_for_a_microsecond_costs_half_a_microsecond(h200):
    # While DRAM is the bottleneck and busy throughout the window, halving its bandwidth
    # for 1 us serves 0.5 us worth of DRAM bytes less; every later transfer waits for
    # them, so the run ends 0.5 us later. The comparison run has the same process at full
    # bandwidth, so both simulate the same waves (extrapolation waits for the process).
    # Only reported completions round, up to a whole tick (1 ps), each; a few along the
    # critical path may land differently: 100 ps of 500,000 is room for that and nothing
    # else (a wrong re-timing of transfers in flight is off by whole nanoseconds).
    w, s = inputs(ALG, batch=2, heads=16, seq_len=2048)
    busy_full: list[bool] = []
    busy_half: list[bool] = []
    full = simulate(ALG, w, s, h200, processes=[_throttle(1.0, busy_full)])
    half = simulate(ALG, w, s, h200, processes=[_throttle(0.5, busy_half)])
    assert len(busy_half) == 100 and all(busy_half) and all(busy_full)  # DRAM-bound meanwhile
    assert next(k for k in full.kernels if k.name == KERNEL).bound == "dram"
    slowdown_s = half.runtime_s - full.runtime_s
    assert slowdown_s == pytest.approx(0.5 * WINDOW_S, abs=100e-12)
    assert half.dram_read_bytes == full.dram_read_bytes  # the same bytes, later


def _idle(gpu):
    return
    yield  # a generator that does nothing


def _extrapolated_cases(h200):
    """A run whose waves are extrapolated, and a causal one whose CTAs are lumped (lumped.py)."""
    w, s = inputs("standard", batch=4, heads=16, seq_len=2048)
    yield "standard", w, s, h200
    causal = Workload(batch=4, heads=16, seq_len_q=1024, seq_len_k=1024, head_dim=64, causal=True)
    schedule = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    yield "flash2", causal, schedule, small_gpu(h200, 4)


def test_a_process_that_does_nothing_changes_nothing(h200):
    for alg, w, s, gpu in _extrapolated_cases(h200):
        plain = simulate(alg, w, s, gpu)
        idle = simulate(alg, w, s, gpu, processes=[_idle])
        if alg == "standard":
            assert sum(k.waves_extrapolated for k in plain.kernels) > 0
        a, b = plain.to_json_dict(), idle.to_json_dict()
        for d in (a, b):
            for k in ("events", "events_per_s", "sim_wall_s"):
                d.pop(k)
        assert a == b
        assert idle.events == plain.events + 2  # the process's own start and end


def test_a_process_that_never_returns_keeps_every_wave_simulated_and_ends_with_the_run(h200):
    w, s = inputs("standard", batch=4, heads=16, seq_len=2048)
    plain = simulate("standard", w, s, h200)
    started: list[tuple[str, float]] = []

    def forever(gpu):
        while True:
            name = yield gpu.kernel_started()
            started.append((name, gpu.now_s))

    watched = simulate("standard", w, s, h200, processes=[forever])
    assert [k.waves_extrapolated for k in watched.kernels] == [0, 0, 0]
    assert sum(k.waves_extrapolated for k in plain.kernels) > 0
    assert started == [(k.name, k.start_s) for k in watched.kernels]
    # Extrapolated and simulated waves agree (kernel_run.py); here to the picosecond.
    assert watched.runtime_s == pytest.approx(plain.runtime_s, rel=1e-6)


def test_bad_lanes_and_fractions_are_refused(h200):
    w, s = inputs("flash2")
    seen = []

    def bad(gpu):
        assert gpu.lanes == ("l2", "dram")
        for lane, frac in (("hbm", 0.5), ("dram", 0.0), ("dram", 1.5)):
            with pytest.raises(GpusimError):
                gpu.set_bandwidth_fraction(lane, frac)
        gpu.set_bandwidth_fraction("l2", 0.3)
        seen.append(gpu.bandwidth_fraction("l2"))
        yield gpu.env.timeout(0)

    simulate("flash2", w, s, h200, processes=[bad])
    assert seen == [0.3]


def test_ticks_and_seconds_convert_at_a_picosecond(h200):
    seen = []

    def conv(gpu):
        seen.append((gpu.ticks(1e-6), gpu.seconds(1500), gpu.launch_overhead_s > 0))
        yield gpu.env.timeout(gpu.ticks(2e-9))
        seen.append(gpu.now_s)

    w, s = inputs("flash2")
    simulate("flash2", w, s, h200, processes=[conv])
    assert seen == [(1_000_000, 1.5e-9, True), 2e-9]


def test_the_example_of_docs_engine_md_runs_and_costs_half_a_microsecond(capsys):
    text = (Path(__file__).resolve().parents[2] / "docs" / "engine.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    ns: dict = {}
    exec(compile(code, "docs/engine.md", "exec"), ns)
    assert ns["slow"].runtime_s - ns["base"].runtime_s == pytest.approx(0.5e-6, abs=100e-12)
    base_us, slow_us = ns["base"].runtime_s * 1e6, ns["slow"].runtime_s * 1e6
    assert capsys.readouterr().out == f"{base_us:.3f} us -> {slow_us:.3f} us\n"
    assert f"It prints `{base_us:.3f} us -> {slow_us:.3f} us`" in text
