"""The simulated GPU as a whole: the SimPy environment, L2, DRAM and the kernel sequence.

Kernels of an algorithm run one after another, as a SimPy process
(:func:`kernel_sequence`): the first one starts one launch overhead after tick 0
(a single kernel's time is overhead + execution, as CUDA events around one launch
measure it), each later one the profile's queued launch after the previous one
ends (it was queued behind it in the same stream; a whole launch where the
profile has no such measurement). User processes
(:mod:`gpusim.engine.hook`) run beside it in the same environment.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from simpy.events import Event, Process

from gpusim.engine.clock import per_tick
from gpusim.engine.environment import Environment
from gpusim.engine.grid import Grid
from gpusim.engine.kernel_run import KernelRun
from gpusim.engine.l2_cache import L2Cache
from gpusim.engine.plan import ClassPlan
from gpusim.engine.ps_channel import PSServer
from gpusim.engine.rates import Rates


class Sim:
    """Everything the CTA groups share: time, rates, the L2 and the two bandwidth channels."""

    def __init__(self, rates: Rates, tracer: Any = None):
        self.env = Environment()
        #: simulated time left out by steady-state wave extrapolation (kernel_run.py)
        self.skipped_ticks = 0
        self.rates = rates
        self.tracer = tracer
        record = tracer is not None
        self.l2 = L2Cache(rates.l2_bytes, rates.l2_loss_curve, rates.l2_line_bytes)
        #: each memory lane's full capacity per tick (a user process may lower it: hook.py)
        self.lane_capacity = {
            "l2": per_tick(rates.l2_bytes_per_s),
            "dram": per_tick(rates.dram_bytes_per_s),
        }
        #: the GPU's shared memory system: lane 0 is SM-to-L2 bandwidth, lane 1 DRAM bandwidth
        self.memory = PSServer(self.env, "memory", list(self.lane_capacity.items()), record)
        #: the user processes of this run (hook.py), started with the kernel sequence
        self.user_processes: list[Process] = []
        #: events to succeed, with the kernel's name, when the next kernel starts
        self.kernel_start_waiters: list[Event] = []

    @property
    def now(self) -> int:
        """Simulated time, the extrapolated waves included."""
        return self.env.now + self.skipped_ticks

    def may_extrapolate(self) -> bool:
        """Whether skipping steady waves or batch-heads is sound now: no user process is alive.

        The skips assume the engine alone changes the GPU, and they move the GPU's clock
        past SimPy's; a user process could change bandwidth inside a skipped stretch and
        must see SimPy's time as the GPU's. Once every user process has returned, neither
        can happen.
        """
        return not any(p.is_alive for p in self.user_processes)

    def kernel_started(self, name: str) -> None:
        """Tell the processes waiting for a kernel start (hook.py) that ``name`` started."""
        waiters, self.kernel_start_waiters = self.kernel_start_waiters, []
        for ev in waiters:
            ev.succeed(name)


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
    #: whether the grid lumps CTAs of different classes (lumped.py; ``Grid.lump``)
    lumped: bool = False
    #: skip the steady middle of a kernel out of lockstep (stream_skip.py, scatter_skip.py)
    extrapolate: bool = False
    #: bytes the SMs fetch from the L2 per byte the kernel reads (prepare.l2_fetch_factor)
    l2_fetch_factor: float = 1.0
    #: DRAM lane cost of a byte the kernel reads, and of one it writes, over a byte's
    #: (prepare.dram_costs: bytes in flight, the read stream)
    dram_costs: tuple[float, float] = (1.0, 1.0)
    #: consecutive grid batch-heads that read the same K/V (GQA group; Kernel.kv_group)
    kv_group: int = 1
    #: ticks until a line the kernel misses in the L2 is ready (stream_latency.py); None:
    #: the sim's DRAM latency
    fill_ticks: int | None = None
    fill_model: str = "chase latency"  # which gave fill_ticks (stream_latency.fill_ticks)
    #: the first wave's younger/older SM-mate duration ratio (mate_age.py; 1: even shares),
    #: and why the profile's measured ratio does not apply to this kernel (None: it does)
    mate_ratio: float = 1.0
    mate_note: str | None = None


def kernel_sequence(sim: Sim, specs: list[KernelSpec], runs: list[KernelRun]) -> Generator:
    """The SimPy process of an algorithm: each kernel one launch overhead after the last ends.

    Appends each ``KernelRun`` to ``runs`` as it starts.
    """
    env = sim.env
    for i, spec in enumerate(specs):
        # The first kernel waits a whole launch; each later one is already queued behind
        # the kernel before it and starts once the GPU dispatches it.
        yield env.timeout(sim.rates.queued_launch_ticks if i else sim.rates.launch_ticks)
        kr = KernelRun(
            sim,
            spec.name,
            spec.grid,
            spec.plans,
            spec.ctas_per_sm,
            spec.aggregated,
            spec.rates,
            spec.l2_fetch_factor,
            spec.dram_costs,
            spec.kv_group,
            spec.extrapolate,
        )
        if spec.fill_ticks is not None:
            kr.fill_ticks = spec.fill_ticks
        kr.mate_ratio = spec.mate_ratio
        runs.append(kr)
        kr.start()
        sim.kernel_started(spec.name)
        yield kr.done


def run_kernels(
    sim: Sim, specs: list[KernelSpec], processes: Sequence[Callable[[], Generator]] = ()
) -> list[KernelRun]:
    """Run ``specs`` in sequence on ``sim``, with ``processes`` beside; the finished runs.

    Each of ``processes`` makes a generator that runs as a SimPy process from tick 0; the
    run ends with the last kernel, whether or not they have returned.
    """
    runs: list[KernelRun] = []
    env = sim.env
    main = env.process(kernel_sequence(sim, specs, runs))
    sim.user_processes = [env.process(make()) for make in processes]
    env.run(until=main)
    return runs
