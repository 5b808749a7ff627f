"""A closed-form estimate beside the engine: roofline and pipelined steady state, per kernel.

Kernels are estimated one by one: a tile one kernel writes and the next reads
again from the L2 (S and P of the materialising algorithms, when they fit)
counts as DRAM traffic twice here and once in the engine.

For each kernel, with ``c`` CTAs resident per SM and ``n`` CTAs in flight
(``min(CTAs, c x SMs)``):

- a CTA's time walks the same phases as the engine (:mod:`gpusim.engine.plan`,
  one step per chunk): each phase takes its slowest activity, where a load
  costs its latency plus its bytes at ``1/n`` of the L2 bandwidth (and its
  DRAM bytes at ``1/n`` of DRAM's), and a compute its busiest pipe at ``1/c``
  of the SM's rate, plus barriers;
- every tile a CTA touches comes from DRAM (or is written back) once: its own
  tiles (Q, O, S, ...) once per CTA, shared tiles (K, V) once per batch-head,
  or per K/V head with grouped heads (perfect L2 reuse, no capacity misses);
  every load waits a DRAM latency;
- ``pipeline = ceil(CTAs / (c x SMs)) x`` the longest CTA;
- ``roofline`` = the largest of work over peak for each pipe, DRAM bytes over
  DRAM bandwidth and SM-to-L2 bytes over L2 bandwidth;
- the kernel takes ``launch + max(pipeline, roofline)``.

Where nothing is contended (CTAs alone on their SMs, each bringing its own
tiles) this is what the engine computes, and the tests hold the two within
a few percent. They part where the engine sees what a formula cannot: CTAs of
a batch-head sharing K/V fetches in the L2 and hitting under each other's
misses, L2 capacity misses, loads of co-resident CTAs colliding in the same
instants rather than spreading evenly, the ragged tail wave, dispatch, and a
tile's arrival under the DRAM's queue (the engine's tile stream law,
:mod:`gpusim.engine.stream_latency`, where the profile has it; here every load
waits the chase latency).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil

from algorithms import get_algorithm
from algorithms.base import KV_TENSORS
from gpusim.counting import MAX_TRACED_STEPS
from gpusim.engine import load_latency
from gpusim.engine.clock import TICKS_PER_S, seconds
from gpusim.engine.plan import ClassPlan
from gpusim.engine.prepare import prepare
from gpusim.engine.rates import PIPES, Rates, rates_for
from gpusim.profiles.gaps import atomic_extra_bytes
from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.workload import Workload


@dataclass
class KernelEstimate:
    """The closed form of one kernel."""

    name: str
    ctas: int
    ctas_per_sm: int
    waves: int  # ceil(CTAs / (CTAs per SM x SMs))
    cta_s: float  # the longest CTA
    pipeline_s: float
    roofline_s: dict[str, float]
    duration_s: float
    dram_bytes: int  # compulsory: own tiles, shared tiles once per batch-head (K/V head), writes
    global_bytes: int

    @property
    def bound(self) -> str:
        """``pipeline`` when the CTA walk dominates, else the roofline's resource."""
        best = max(self.roofline_s, key=lambda k: self.roofline_s[k])
        return best if self.roofline_s[best] >= self.pipeline_s else "pipeline"


@dataclass
class Estimate:
    """The closed form of a whole algorithm (kernels in sequence)."""

    algorithm: str
    runtime_s: float
    kernels: list[KernelEstimate] = field(default_factory=list)

    @property
    def dram_bytes(self) -> int:
        """Compulsory DRAM bytes of all kernels."""
        return sum(k.dram_bytes for k in self.kernels)


def _cta_ticks(plan: ClassPlan, rates: Rates, c: int, n: int, bh_ctas: int) -> float:
    l2_share = rates.l2_bytes_per_s / TICKS_PER_S / n
    dram_share = rates.dram_bytes_per_s / TICKS_PER_S / n
    total = 0.0
    for ph in plan.phases:
        load = 0.0
        if ph.loads:
            l2 = dram = units = 0.0
            for ld in ph.loads:
                chunk = plan.chunks[ld.chunk]
                units += ld.latency_units
                l2 += ld.frac * chunk.read_bytes
                for r in chunk.reads:
                    dram += ld.frac * (r.nbytes if r.own_rows else r.nbytes / bh_ctas)
            transfer = max(l2 / l2_share, dram / dram_share)
            load = load_latency.load_time(units * rates.dram_latency_ticks, transfer)
        compute = 0.0
        if ph.compute is not None:
            chunk = plan.chunks[ph.compute[0]]
            frac = ph.compute[1]
            # The step's phases in sequence, each its busiest pipe (rates.py).
            work = {p: frac * amount * c for p, amount in chunk.work}
            busiest = rates.step_ticks(work)
            if len([g for g in rates.phases(work) if g]) > 1:
                busiest *= rates.sched_scale  # serial phases: the SM core model's time, if any
            compute = busiest + frac * chunk.barriers * rates.barrier_ticks
        written = sum(plan.chunks[w].write_bytes for w in ph.writes)
        atomic = sum(plan.chunks[w].atomic_write_bytes for w in ph.writes)
        l2_written = written + atomic_extra_bytes(rates.l2_atomic_cost, atomic)  # the L2's adds
        write = rates.store_ticks(written) + l2_written / l2_share
        total += max(load, compute, write)
    return total


def _compulsory_own_bytes(plan: ClassPlan, shared: dict[tuple, int]) -> int:
    """DRAM bytes of one CTA's own tiles; records its shared tiles' bytes in ``shared``.

    A tile is read from DRAM once unless the CTA wrote it first, and written back once.
    """
    own: dict[tuple, int] = {}
    for ch in plan.chunks:
        for kind, refs in (("r", ch.reads), ("w", ch.writes)):
            for r in refs:
                table = own if r.own_rows else shared
                key = (r.tensor, r.bh_off, r.row0, r.col0)  # engine/head_keys.py
                if kind == "r" and (*key, "w") in table:
                    continue
                table[(*key, kind)] = max(table.get((*key, kind), 0), r.nbytes)
    return sum(own.values())


def estimate(
    algorithm: str, workload: Workload, schedule: Schedule, profile: HardwareProfile
) -> Estimate:
    """The closed-form runtime of ``algorithm`` (see the module docstring)."""
    alg = get_algorithm(algorithm)
    alg.check(workload, schedule)
    base = rates_for(
        profile, workload.dtype, schedule.warps, schedule=schedule, head_dim=workload.head_dim
    )
    rates = base
    sms = rates.sm_count
    out = Estimate(algorithm, 0.0)
    for kernel in alg.kernels(workload, schedule):
        prep = prepare(kernel, profile, base, False, [MAX_TRACED_STEPS])
        rates = prep.spec.rates or base  # at the kernel's own SM clock
        plans, bh = prep.spec.plans, kernel.grid_batch_heads
        c = prep.occupancy.ctas_per_sm
        ctas = kernel.num_ctas
        n = max(1, min(ctas, c * sms))
        c_eff = max(1, min(c, ceil(ctas / sms)))
        bh_ctas = max(1, min(kernel.blocks_per_bh(), n))
        cta_ticks = max(_cta_ticks(p, rates, c_eff, n, bh_ctas) for p in plans)
        waves = ceil(ctas / (c * sms))
        pipeline_s = seconds(waves * cta_ticks)
        work = dict.fromkeys(PIPES, 0.0)
        dram = glob = 0
        shared: dict[tuple, int] = {}
        for p in plans:
            times = p.blocks_per_bh * bh
            t = p.totals
            for pipe, amount in rates.work(
                t["mma_flops"], t["fp32_ops"], t["exp_ops"], t["smem_bytes"], t["smem_fill_bytes"]
            ).items():
                work[pipe] += times * amount
            glob += times * (t["read_bytes"] + t["write_bytes"])
            dram += times * _compulsory_own_bytes(p, shared)
        # Shared tiles once per batch-head; K and V once per GQA group of batch-heads.
        kv_bh = bh // kernel.kv_group()
        dram += sum(n * (kv_bh if k[0] in KV_TENSORS else bh) for k, n in shared.items())
        roofline = {pipe: work[pipe] / rates.peak_per_s(pipe) for pipe in PIPES}
        roofline["dram"] = dram / rates.dram_bytes_per_s
        roofline["l2"] = glob / rates.l2_bytes_per_s
        duration = max(pipeline_s, *roofline.values())
        out.kernels.append(
            KernelEstimate(
                kernel.name,
                ctas,
                c,
                waves,
                seconds(cta_ticks),
                pipeline_s,
                roofline,
                duration,
                dram,
                glob,
            )
        )
        launch = rates.queued_launch_ticks if len(out.kernels) > 1 else rates.launch_ticks
        out.runtime_s += seconds(launch) + duration
    return out
