"""The simulated GPU as a whole: the SimPy environment, L2, DRAM and the kernel sequence.

Kernels of an algorithm run one after another; each starts one launch
overhead after the previous one ends (the first one after one overhead
too, so a single kernel's time is overhead + execution, as back-to-back
launches measure it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpusim.engine.clock import per_tick
from gpusim.engine.event_loop import EventLoop
from gpusim.engine.grid import Grid
from gpusim.engine.kernel_run import KernelRun
from gpusim.engine.l2_cache import L2Cache
from gpusim.engine.plan import ClassPlan
from gpusim.engine.ps_channel import PSServer
from gpusim.engine.rates import Rates


class Sim:
    """Everything the CTA groups share: time, rates, the L2 and the two bandwidth channels."""

    def __init__(self, rates: Rates, tracer: Any = None):
        self.env = EventLoop()
        #: simulated time left out by steady-state wave extrapolation (kernel_run.py)
        self.skipped_ticks = 0
        self.rates = rates
        self.tracer = tracer
        record = tracer is not None
        self.l2 = L2Cache(rates.l2_bytes, rates.l2_loss_curve, rates.l2_line_bytes)
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
    #: skip the steady middle of the grid batch-head-wise (bh_skip.py; causal kernels)
    extrapolate_bh: bool = False
    #: bytes the SMs fetch from the L2 per byte the kernel reads (prepare.l2_fetch_factor)
    l2_fetch_factor: float = 1.0
    #: DRAM bandwidth a byte of the kernel takes over a byte's (prepare.py: bytes in flight)
    dram_cost: float = 1.0


def run_kernels(sim: Sim, specs: list[KernelSpec]) -> list[KernelRun]:
    """Run ``specs`` in sequence on ``sim``; the finished runs, in order."""
    runs: list[KernelRun] = []
    todo = iter(specs)

    def launch_next() -> None:
        """One launch overhead, then the next kernel (when the previous one has ended)."""
        spec = next(todo, None)
        if spec is not None:
            sim.env.call_in(sim.rates.launch_ticks, lambda: start(spec))

    def start(spec: KernelSpec) -> None:
        kr = KernelRun(
            sim,
            spec.name,
            spec.grid,
            spec.plans,
            spec.ctas_per_sm,
            spec.aggregated,
            spec.rates,
            spec.extrapolate_bh,
            spec.l2_fetch_factor,
            spec.dram_cost,
        )
        kr.on_done = launch_next
        runs.append(kr)
        kr.start()

    launch_next()
    sim.env.run()
    return runs
