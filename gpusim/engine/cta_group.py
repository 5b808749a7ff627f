"""A group of identical CTAs that run in lockstep: one per SM of an SM group, on one slot.

In the detailed path every group is one CTA. In the aggregated path a group
stands for ``size`` CTAs of one class that were dispatched at the same tick
to the same slot (``layers``, one entry) of every SM of an SM group: they
have the same program and the same co-residents, so they progress together
and are simulated once. (A group could hold several slots of each SM, but
co-resident CTAs drift apart on the GPU, so the dispatcher no longer lumps
them.) Their tiles are still told apart for the L2: tensors
the CTA's own block indexes are looked up per run of consecutive CTAs (one
entry per run, named after its first tile and its length), shared tiles
(K, V) once per batch-head in the group (per K/V head for a GQA group's heads),
which is how a tile that the first CTA fetches from DRAM becomes an L2 hit for
the others. A timing class may hold classes that move other tiles of the same
shapes (split-KV's key slices): each CTA run's tiles come from its own class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpusim.engine import load_latency
from gpusim.engine.activity import LAYERS, MEMBERS, ONE, WAIT, XFER, Activity
from gpusim.engine.cta_l2 import L2Meeting, Lookup
from gpusim.engine.plan import ClassPlan, Phase
from gpusim.engine.product_groups import products_ticks
from gpusim.engine.ps_channel import PSServer
from gpusim.engine.rates import SCHED_LANE, SM_LANES
from gpusim.engine.smem_release import phase_span
from gpusim.profiles.gaps import atomic_extra_bytes

L2_LANE, DRAM_LANE = 0, 1
PIPE_LANE = {p: i for i, p in enumerate((*SM_LANES, SCHED_LANE))}

if TYPE_CHECKING:
    from gpusim.engine.kernel_run import KernelRun
    from gpusim.engine.sm_group import SmGroup


class CtaGroup(L2Meeting):
    """CTAs of one class on slots ``layers`` of every SM of ``smg``; CTA grid runs in ``starts``."""

    __slots__ = (
        "_avg_bytes",
        "_bh_runs",
        "_starting",
        "acts",
        "dram",
        "layers",
        "lookups",
        "pending",
        "phase",
        "plan",
        "run",
        "smg",
        "start_tick",
        "starts",
        "weights",
        "work_scale",
    )

    def __init__(
        self, run: KernelRun, plan: ClassPlan, smg: SmGroup, layers: list[int], starts: list[int]
    ):
        self.run = run
        self.plan = plan
        self.smg = smg
        self.layers = layers  # slot index on each SM of the group, one per run of CTAs
        self.starts = starts  # first CTA (grid index) of each layer's run; run i has smg.size CTAs
        self.phase = -1
        self.pending = 0
        self.acts: list[Activity] = []
        self.lookups: dict[int, Lookup] = {}
        self.start_tick = run.sim.env.now
        self.dram = [0, 0]  # DRAM bytes [read, written] its lookups caused (scatter_skip.py)
        self._starting = False
        self._bh_runs: list[tuple[int, int, int, int]] | None = None
        self._avg_bytes: dict[tuple[int, bool], float] = {}
        self.weights = self._weights()
        #: this group's SM work over its class's (CTA time scatter: KernelRun._work_scale)
        self.work_scale = 1.0

    # --- shape ------------------------------------------------------------------------
    @property
    def members(self) -> int:
        """CTAs in the group."""
        return self.smg.size * len(self.layers)

    def _weights(self) -> dict[str, int]:
        """``weight`` of each kind, for a submit (``one``: 0, its parts carry their count).

        Kept in ``weights``; only a split changes the group's shape (``split`` renews it).
        """
        layers = len(self.layers)
        return {MEMBERS: self.smg.size * layers, LAYERS: layers, ONE: 0}

    def weight(self, kind: str) -> int:
        """Job weight of a transfer of ``kind`` (see :mod:`gpusim.engine.activity`)."""
        if kind == MEMBERS:
            return self.members
        return len(self.layers) if kind == LAYERS else 1

    def server(self, name: str) -> PSServer:
        """``mem`` (the GPU's L2 and DRAM) or ``pipes`` (this SM group's)."""
        return self.run.sim.memory if name == "mem" else self.smg.pipes

    def bh_runs(self) -> list[tuple[int, int, int, int]]:
        """The group's CTAs as ``(bh, first block, count, class)`` runs."""
        if self._bh_runs is None:
            grid, size = self.run.grid, self.smg.size
            self._bh_runs = [r for s in self.starts for r in grid.bh_runs(s, size)]
        return self._bh_runs

    def bh_counts(self) -> dict[int, int]:
        """CTAs of the group per batch-head."""
        counts: dict[int, int] = {}
        for bh, _b, n, _c in self.bh_runs():
            counts[bh] = counts.get(bh, 0) + n
        return counts

    def _bytes_per_cta(self, c: int, reads: bool) -> float:
        """Chunk ``c``'s read (or write) bytes per CTA, averaged over the group's classes.

        CTAs of one timing class differ only in the sizes of their own tiles (a ragged
        last block moves fewer bytes); the group moves their average, so the bandwidth
        it takes is right even though its CTAs finish together.
        """
        chunk = self.plan.chunks[c]
        if not self.run.grid.mixed:
            return chunk.read_bytes if reads else chunk.write_bytes
        got = self._avg_bytes.get((c, reads))
        if got is None:
            plans = self.run.plans
            total = 0
            for _bh, _b, n, cls in self.bh_runs():
                other = plans[cls].chunks[c]
                total += n * (other.read_bytes if reads else other.write_bytes)
            got = self._avg_bytes[(c, reads)] = total / self.members
        return got

    # --- running ----------------------------------------------------------------------
    def begin(self) -> None:
        """Start the first phase."""
        self._next_phase()

    def activity_done(self) -> None:
        """One activity of the current phase has finished."""
        self.pending -= 1
        if self.pending == 0 and not self._starting:
            self._next_phase()

    def _next_phase(self) -> None:
        plan = self.plan
        while True:
            self.phase += 1
            if self.phase >= len(plan.phases):
                self.acts = []
                self.run.group_done(self)
                return
            ph = plan.phases[self.phase]
            for c in ph.lookups:
                self.lookups[c] = self._lookup_reads(c)
            acts = []
            if ph.loads:
                acts += [Activity(self, stages) for stages in self._load_stages(ph)]
            if ph.compute is not None:
                acts.append(Activity(self, self._compute_stages(*ph.compute)))
            if ph.writes:
                acts.append(Activity(self, self._write_stages(ph.writes)))
            self.acts = acts
            self.pending = len(acts)
            self._starting = True
            for a in acts:
                a._advance()  # Activity.start
            self._starting = False
            if self.pending > 0:
                return

    def _load_stages(self, ph: Phase) -> list[list]:
        """The stages of the phase's load: its latency and its transfer, as two activities
        that run together (the longer is the load's time: load_latency.py), or one after
        the other in one activity."""
        lat = l2 = own = shared = 0.0
        fetches = 1
        run = self.run
        mixed = run.grid.mixed
        chunks = self.plan.chunks
        lookups = self.lookups
        for ld in ph.loads:
            c = ld.chunk
            lk = lookups[c]
            lat += ld.latency_units * lk.latency
            nbytes = self._bytes_per_cta(c, reads=True) if mixed else chunks[c].read_bytes
            l2 += ld.frac * nbytes * run.l2_fetch_factor
            own += ld.frac * lk.own_dram
            shared += ld.frac * lk.shared_dram
            fetches = max(fetches, lk.fetches)
        cost = run.dram_read_cost  # its bytes in flight or the read stream (dram_costs)
        parts = [
            (L2_LANE, MEMBERS, l2, 0),
            (DRAM_LANE, MEMBERS, own * cost, 0),
            (DRAM_LANE, ONE, shared * cost / fetches, fetches),
        ]
        wait, xfer = (WAIT, round(lat)), (XFER, ("mem", parts))
        return [[wait], [xfer]] if load_latency.under_queue() else [[wait, xfer]]

    def _compute_stages(self, chunk: int, frac: float) -> list:
        # The same for every CTA of the class: built once per kernel (weights come at submit).
        key = (self.plan.index, chunk, frac)
        got = self.run.compute_stages.get(key)
        if got is None:
            got = self.run.compute_stages[key] = self._build_compute_stages(chunk, frac)
        return got

    def _build_compute_stages(self, chunk: int, frac: float) -> list:
        c = self.plan.chunks[chunk]
        rates = self.run.rates
        work = dict(c.work)
        # The phases of a step run one after another (rates.py: MMA_PHASE, then ALU_PHASE).
        groups = rates.serial_parts(work)
        stages: list = []
        for group in groups:
            parts = [(PIPE_LANE[p], LAYERS, v * frac, 0) for p, v in group.items()]
            if len(groups) > 1:
                # Serial phases also hold the SM's schedulers for their duration (rates.py).
                times = {p: v * frac / rates.pipe_per_tick[p] for p, v in group.items()}
                span = phase_span(times, rates.smem_release)  # engine/smem_release.py
                if rates.product_kappa:  # engine/product_groups.py
                    span = max(span, products_ticks(times, rates.product_kappa, rates.efficiency))
                span *= rates.sched_scale  # the core model's time for the compiled code
                parts.append((PIPE_LANE[SCHED_LANE], LAYERS, span, 0))
            stages.append((XFER, ("pipes", parts)))
        barrier = round(c.barriers * frac * rates.barrier_ticks)
        return [*stages, (WAIT, barrier)]

    def _write_stages(self, chunk_ids: tuple[int, ...]) -> list:
        l2 = own = shared = 0.0
        fetches = 1
        rates = self.run.rates
        for c in chunk_ids:
            o, s, f = self._lookup_writes(c)
            nbytes = self._bytes_per_cta(c, reads=False)
            l2 += nbytes
            if rates.l2_atomic_cost != 1.0 and (atomic := self.plan.chunks[c].atomic_write_bytes):
                # The L2 performs the adds at its own rate: they hold its lane longer.
                share = nbytes * atomic / self.plan.chunks[c].write_bytes
                l2 += atomic_extra_bytes(rates.l2_atomic_cost, share)
            own += o
            shared += s
            fetches = max(fetches, f)
        cost = self.run.dram_write_cost
        parts = [
            (L2_LANE, MEMBERS, l2, 0),
            (DRAM_LANE, MEMBERS, own * cost, 0),
            (DRAM_LANE, ONE, shared * cost / fetches, fetches),
        ]
        # Stores from accumulator registers: the CTA issues them before its bytes can go
        # (calibrate/cta_life: per SM, whatever the other SMs do).
        issue = self.run.rates.store_ticks(l2)
        return [(WAIT, issue), (XFER, ("mem", parts))] if issue else [(XFER, ("mem", parts))]

    # --- splitting --------------------------------------------------------------------
    def split(self, offset: int, old_size: int, new_smg: SmGroup) -> CtaGroup:
        """Hand the CTAs on SMs ``offset ..`` of the old SM group (now ``new_smg``) to a new group.

        ``self.smg`` has already shrunk to ``offset`` SMs; ``old_size`` was its size.
        """
        other = type(self).__new__(type(self))
        other.run = self.run
        other.plan = self.plan
        other.smg = new_smg
        other.layers = list(self.layers)
        other.starts = [s + offset for s in self.starts]
        other.phase = self.phase
        other.work_scale = self.work_scale
        other.start_tick = self.start_tick
        other.dram = [0, 0]
        other._starting = False
        other._bh_runs = self._bh_runs = None
        other._avg_bytes, self._avg_bytes = {}, {}
        self.weights, other.weights = self._weights(), other._weights()
        other.lookups = {
            c: Lookup(lk.own_dram, 0.0, 0, lk.latency) for c, lk in self.lookups.items()
        }
        self._split_extra(other)
        other.acts = [a.clone_for(other) for a in self.acts if not a.finished]
        other.pending = len(other.acts)
        return other

    def _split_extra(self, other: CtaGroup) -> None:
        """Copy what a subclass keeps besides the fields above to ``other`` (lumped.py)."""
