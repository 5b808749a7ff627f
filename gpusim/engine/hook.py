"""The hook for user SimPy processes: what a process sees of the simulated GPU.

``simulate(..., processes=[fn, ...])`` calls each ``fn(gpu)`` with a
:class:`GpuHandle` and runs the generator it returns as a SimPy process in the
engine's environment, from tick 0 (the start of the first launch overhead) to
the end of the last kernel. A process waits with ``yield gpu.env.timeout(...)``
(in ticks: :meth:`GpuHandle.ticks`), or for the next kernel with ``yield
gpu.kernel_started()``, and changes the GPU with
:meth:`GpuHandle.set_bandwidth_fraction`. docs/engine.md has an example.

While any user process is alive, the engine simulates every wave: its
steady-state extrapolation (waves, batch-heads) waits until all have returned
(:meth:`gpusim.engine.sim.Sim.may_extrapolate`), so ``gpu.env.now`` is the
GPU's time whenever a process runs. A process that never returns keeps
extrapolation off for the whole run.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

import simpy
from simpy.events import Event

from gpusim.engine import clock
from gpusim.engine.sim import Sim
from gpusim.errors import GpusimError

#: What ``simulate(processes=...)`` takes: a generator function of the handle.
UserProcess = Callable[["GpuHandle"], Generator]


class GpuHandle:
    """A user process's view of one simulation: its SimPy environment, time, and memory lanes."""

    __slots__ = ("_fraction", "_sim")

    def __init__(self, sim: Sim):
        self._sim = sim
        self._fraction = dict.fromkeys(sim.lane_capacity, 1.0)

    @property
    def env(self) -> simpy.Environment:
        """The simulation's ``simpy.Environment`` (time in integer ticks)."""
        return self._sim.env

    @property
    def now_s(self) -> float:
        """Simulated time now, in seconds."""
        return clock.seconds(self._sim.env.now)

    @staticmethod
    def ticks(seconds: float) -> int:
        """``seconds`` as a whole number of ticks (rounded up; one tick is a picosecond)."""
        return clock.ticks(seconds)

    @staticmethod
    def seconds(ticks: int | float) -> float:
        """``ticks`` in seconds."""
        return clock.seconds(ticks)

    @property
    def launch_overhead_s(self) -> float:
        """Time from tick 0 to the start of the first kernel."""
        return clock.seconds(self._sim.rates.launch_ticks)

    @property
    def queued_launch_s(self) -> float:
        """Time from the end of one kernel to the start of the next (queued behind it)."""
        return clock.seconds(self._sim.rates.queued_launch_ticks)

    def kernel_started(self) -> Event:
        """An event that succeeds, with the kernel's name, when the next kernel starts.

        (It starts at its first dispatch: the first kernel one launch overhead after tick 0, a
        later one the queued launch after the previous one ends.)
        """
        ev = Event(self._sim.env)
        self._sim.kernel_start_waiters.append(ev)
        return ev

    @property
    def lanes(self) -> tuple[str, ...]:
        """Names of the memory lanes a process can throttle."""
        return tuple(self._sim.lane_capacity)

    def bandwidth_fraction(self, lane: str) -> float:
        """The share of lane ``lane``'s bandwidth the kernels have now (1.0: all of it)."""
        self._lane_index(lane)
        return self._fraction[lane]

    def transfers_in_flight(self, lane: str) -> int:
        """How many of the kernels' transfers share ``lane`` (0: idle), as of the last event.

        Reading it changes nothing (the lane is not brought up to date for it): transfers
        that end within the tick now may still count.
        """
        return self._sim.memory.lanes[self._lane_index(lane)].w

    def set_bandwidth_fraction(self, lane: str, fraction: float) -> None:
        """Leave the kernels ``fraction`` (0 < fraction <= 1) of ``lane``'s bandwidth from now.

        ``lane`` is ``"dram"`` (device memory) or ``"l2"`` (SM-to-L2). Transfers in flight
        keep what they have moved and go on at the new shares (processor sharing); set
        1.0 to give the bandwidth back.
        """
        if not 0.0 < fraction <= 1.0:
            raise GpusimError(f"bandwidth fraction must be in (0, 1], got {fraction!r}")
        idx = self._lane_index(lane)
        self._sim.memory.set_capacity(idx, self._sim.lane_capacity[lane] * fraction)
        self._fraction[lane] = fraction

    def _lane_index(self, lane: str) -> int:
        if lane not in self._sim.lane_capacity:
            known = ", ".join(self._sim.lane_capacity)
            raise GpusimError(f"unknown memory lane {lane!r}; use one of {known}")
        return self._sim.memory.lane(lane)
