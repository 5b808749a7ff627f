"""The simulated GPU as a whole: the SimPy environment, L2, DRAM and the kernel sequence.

Kernels of an algorithm run one after another; each starts one launch
overhead after the previous one ends (the first one after one overhead
too, so a single kernel's time is overhead + execution, as back-to-back
launches measure it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import simpy
from simpy.core import NORMAL

from gpusim.engine.clock import per_tick
from gpusim.engine.grid import Grid
from gpusim.engine.kernel_run import KernelRun
from gpusim.engine.l2_cache import L2Cache
from gpusim.engine.plan import ClassPlan
from gpusim.engine.ps_channel import PSServer
from gpusim.engine.rates import Rates


class CountingEnvironment(simpy.Environment):
    """A SimPy environment with integer time that counts the events it schedules."""

    def __init__(self) -> None:
        super().__init__(0)
        self.events = 0

    def schedule(self, event: Any, priority: Any = NORMAL, delay: Any = 0) -> None:
        """Schedule ``event`` (and count it)."""
        self.events += 1
        super().schedule(event, priority, delay)


class Sim:
    """Everything the CTA groups share: time, rates, the L2 and the two bandwidth channels."""

    def __init__(self, rates: Rates, tracer: Any = None):
        self.env = CountingEnvironment()
        #: simulated time left out by steady-state wave extrapolation (kernel_run.py)
        self.skipped_ticks = 0
        self.rates = rates
        self.tracer = tracer
        record = tracer is not None
        self.l2 = L2Cache(rates.l2_bytes)
        lanes = [("l2", per_tick(rates.l2_bytes_per_s)), ("dram", per_tick(rates.dram_bytes_per_s))]
        #: the GPU's shared memory system: lane 0 is SM-to-L2 bandwidth, lane 1 DRAM bandwidth
        self.memory = PSServer(self.env, "memory", lanes, record)

    @property
    def now(self) -> int:
        """Simulated time, the extrapolated waves included."""
        return self.env.now + self.skipped_ticks


@dataclass
class KernelSpec:
    """One kernel ready to run: its grid, its class plans, and its occupancy."""

    name: str
    grid: Grid
    plans: list[ClassPlan]
    ctas_per_sm: int
    aggregated: bool
    #: the kernel's own rates (its SM clock: rates.py, ``Rates.for_kernel``); None: the sim's
    rates: Rates | None = None


def run_kernels(sim: Sim, specs: list[KernelSpec]) -> list[KernelRun]:
    """Run ``specs`` in sequence on ``sim``; the finished runs, in order."""
    runs: list[KernelRun] = []

    def driver():
        """Launch the kernels one after another."""
        for spec in specs:
            yield sim.env.timeout(sim.rates.launch_ticks)
            kr = KernelRun(
                sim, spec.name, spec.grid, spec.plans, spec.ctas_per_sm, spec.aggregated, spec.rates
            )
            runs.append(kr)
            kr.start()
            yield kr.done

    sim.env.process(driver())
    sim.env.run()
    return runs
