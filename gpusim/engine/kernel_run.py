"""One kernel launch: a dispatcher hands CTAs to free slots in grid order; waves and tails appear.

Slots free up when a CTA group finishes. All slots freed at one tick are
filled together, after everything else of that tick, in the order (slot, SM)
— breadth first, as a GPU spreads a launch over its SMs — so the detailed
and the aggregated paths place every CTA on the same SM and slot.

Steady-state waves (aggregated path, no trace, no user process alive: hook.py).
When the whole GPU frees at once, the memory system is idle and the next wave
starts from the same state as the last one did, but for which tiles the L2
holds. If the last waves repeat with period ``P`` (1, 2 or 4 waves: the same duration within
:data:`PERIOD_TOLERANCE_TICKS` and exactly the same counter increments), the
engine skips whole periods up to the last one before the tail: it moves the
grid on, adds the skipped periods' counters and time, and simulates the rest.
A period must also line up with the grid's own period, the blocks of one
batch-head, whenever CTAs share tiles (K, V) or the last block is ragged:
a wave that straddles two batch-heads fetches two sets of K/V, so equal
increments over a few waves say nothing about waves that straddle
differently. A skipped wave leaves no tiles in the L2; that matters only
when a later wave would have hit on them, which the equal increments of the
periods checked say did not happen in the waves simulated.

CTA time scatter. Identical CTAs do not stay in lockstep on a GPU: on the H200 their
durations scatter by about 1.3 % (the profile's ``cta_duration_scatter``,
data/h200/2026-11-30_calibration_cta_scatter), so the CTAs of a wave finish apart and
the next waves start further and further apart (a fifth of a CTA's life after 8 waves in
that benchmark). Where the profile gives it, every CTA group's SM work is scaled by
``1 + scatter * z``, z taken in turn from a fixed equidistributed sequence of standard
normal quantiles (deterministic: the same run gives the same result), and the aggregated
path lumps the SMs into :data:`SCATTER_STRATA` groups rather than one, so that groups of
SMs can drift apart. Waves then no longer repeat, and the steady-state skip does not apply;
streaming kernels (CTAs that touch tiles of their own only) have a skip of their own
(:mod:`gpusim.engine.stream_skip`), and every other grid out of lockstep one that cuts it
short once its rate is statistically steady (:mod:`gpusim.engine.scatter_skip`).
"""

from __future__ import annotations

from dataclasses import astuple
from itertools import pairwise
from statistics import NormalDist
from typing import TYPE_CHECKING

from simpy.events import Event

from gpusim.engine import scatter_skip, wave_budget
from gpusim.engine.counters import Counters
from gpusim.engine.cta_group import CtaGroup
from gpusim.engine.environment import call_later
from gpusim.engine.grid import LUMPED, Grid
from gpusim.engine.lumped import LumpedGroup
from gpusim.engine.mate_age import rank_scales
from gpusim.engine.plan import ClassPlan
from gpusim.engine.rates import Rates
from gpusim.engine.sm_group import SmGroup
from gpusim.engine.stream_skip import StreamSkip, applies

if TYPE_CHECKING:
    from gpusim.engine.sim import Sim

#: Priority of the dispatch event: after every normal event of the same tick (SimPy's
#: ``NORMAL`` is 1).
DISPATCH_PRIORITY = 2
#: Wave periods (in waves) the steady-state detector tries.
PERIODS = (1, 2, 4)
#: Two periods whose durations differ by at most this many ticks count as equal.
PERIOD_TOLERANCE_TICKS = 2
#: SM groups of the aggregated path when CTAs' durations scatter (each drifts on its own).
SCATTER_STRATA = 4
#: Share of a streaming kernel's grid simulated before the cut of scatter_skip.py watches
#: it (where the stream skip never jumps: the DRAM not kept busy). Such grids run a
#: thousand waves and more whose strata keep drifting apart for hundreds of them, so a
#: rate read after a few waves is not the run's (standard attention's row softmax on 48 SMs
#: of the H200: 2.5 % fast when read after 6 waves).
STREAM_CUT_WARM = 0.1
#: ... and only grids of at least this many waves (the row softmax's 400-3700; the
#: backward's short streaming kernels, under 100, stay simulated to their end).
STREAM_CUT_MIN_WAVES = 300
#: SM groups of the aggregated path when it lumps CTAs of different lengths (lumped.py): the
#: groups drift apart as their CTAs' lengths differ, as the GPU's SMs do, so that the loads
#: and stores of CTAs that start and end together do not all collide.
LUMP_STRATA = 8
#: A lumped grid's cuts at batch-heads' ends stop once the SMs are split into this many
#: groups (they never merge again): past it, the grid lumps across batch-heads.
LUMP_MAX_SM_GROUPS = 2 * LUMP_STRATA
#: Step of the equidistributed sequence of the scatter's quantiles (the golden ratio's
#: fractional part: successive draws cover (0, 1) evenly in any stretch of the run).
_GOLDEN = 0.6180339887498949
_NORMAL = NormalDist()


class KernelRun:
    """Runs one kernel's grid on the SMs; ``done`` (a SimPy event) fires when its last CTA has."""

    def __init__(
        self,
        sim: Sim,
        name: str,
        grid: Grid,
        plans: list[ClassPlan],
        ctas_per_sm: int,
        aggregated: bool,
        rates: Rates | None = None,
        l2_fetch_factor: float = 1.0,
        dram_costs: tuple[float, float] = (1.0, 1.0),
        kv_group: int = 1,
        extrapolate: bool = False,
    ):
        self.sim = sim
        #: consecutive batch-heads whose CTAs read one K/V head's K and V (GQA; 1: none):
        #: their K/V tiles are one set of tiles in the L2 (cta_group.py)
        self.kv_group = kv_group
        #: ticks until a line this kernel misses in the L2 is ready (stream_latency.py)
        self.fill_ticks = sim.rates.dram_latency_ticks
        #: DRAM bandwidth one byte this kernel reads (writes) takes, over one byte's: above 1
        #: when its threads keep too few bytes in flight to reach the DRAM's bandwidth; a read
        #: of a tile-copy kernel below 1 and its write above (prepare.dram_costs)
        self.dram_read_cost, self.dram_write_cost = dram_costs
        #: bytes the SMs fetch from the L2 per byte read (they take the L2's bandwidth)
        self.l2_fetch_factor = l2_fetch_factor
        #: this kernel's pipe rates (its SM clock); the memory system's are the sim's
        self.rates = rates or sim.rates
        self.name = name
        self.grid = grid
        self.plans = plans
        #: (class, chunk, fraction) -> compute stages, shared by the class's CTAs (cta_group.py)
        self.compute_stages: dict[tuple[int, int, float], list] = {}
        self.ctas_per_sm = ctas_per_sm
        self.aggregated = aggregated
        self.counters = Counters()
        #: succeeds (an event of its own) once the last CTA has finished
        self.done = Event(sim.env)
        self.next_cta = 0
        #: CTAs ``[0, end_cta)`` are simulated: the whole grid, less what the cut of a grid
        #: out of lockstep left out (scatter_skip.py)
        self.end_cta = grid.total
        self.live = 0
        self.groups_made = 0
        self.start_tick = sim.env.now
        self.end_tick: int | None = None
        self.waves_skipped = 0
        #: CTAs handed to SMs so far (skipped ones not counted), and the most the wave
        #: budget allows (wave_budget.py; set at start)
        self.simulated_ctas = 0
        self._ctas_budget = 0
        #: what the lumped groups of this kernel look up once (lumped.py)
        self.lumped_cache: dict = {}
        self.sm_groups: list[SmGroup] = []
        self._waves: list[tuple[int, int, tuple]] = []  # (tick, next CTA, counters) per wave start
        # Periods must cover whole batch-heads when CTAs share tiles or classes differ by block.
        self._aligned = grid.mixed or any(
            not r.own_rows for p in plans for c in p.chunks for r in c.reads + c.writes
        )
        self._freed: list[tuple[SmGroup, int]] = []
        #: the skip of streaming kernels out of lockstep (stream_skip.py), where it applies
        self._stream = StreamSkip(self) if extrapolate and applies(self) else None
        self._extrapolate = extrapolate
        #: the cut of other grids out of lockstep (scatter_skip.py), made at start()
        self._cut: scatter_skip.ScatterSkip | None = None
        self._dispatch_pending = False
        self._placing = False
        #: the first wave's younger/older SM-mate ratio (mate_age.py; 1: even shares), and
        #: whether the dispatch under way is the first wave's
        self.mate_ratio = 1.0
        self._first_wave = False

    def start(self) -> None:
        """Make the SM groups and dispatch the first wave."""
        n = self.sim.rates.sm_count
        self.start_tick = self.sim.now
        strata = max(
            SCATTER_STRATA if self.rates.cta_scatter > 0 else 1,
            LUMP_STRATA if self.grid.lump_end and self.grid.lump_by_bh else 1,
        )
        cut = self.aggregated and self._extrapolate and scatter_skip.ENABLED
        if cut and strata > 1:
            # The strata drift apart: the GPU never frees at once (scatter_skip.py). A
            # streaming kernel keeps the cut too: its own skip needs the DRAM busy, which a
            # kernel bound elsewhere (fewer SMs, more bandwidth) never has; where that skip
            # jumps first, the cut sees the waves skipped and stops.
            self._cut = (
                scatter_skip.ScatterSkip(self, STREAM_CUT_WARM, STREAM_CUT_MIN_WAVES)
                if self._stream
                else scatter_skip.ScatterSkip(self)
            )
        if self.aggregated and strata > 1:
            cuts = sorted({round(i * n / strata) for i in range(strata + 1)})
            sm_groups = [SmGroup(self, a, b - a, self.ctas_per_sm) for a, b in pairwise(cuts)]
        elif self.aggregated:
            sm_groups = [SmGroup(self, 0, n, self.ctas_per_sm)]
        else:
            sm_groups = [SmGroup(self, i, 1, self.ctas_per_sm) for i in range(n)]
        self.sm_groups = list(sm_groups)
        # No skip runs under a tracer or on the detailed path; only the cut could shorten a
        # grid out of lockstep that streams no tiles of its own.
        never = self.sim.tracer is not None or not self.aggregated
        only_cut = self._cut if not never and self._stream is None else None
        self._ctas_budget = wave_budget.check_before_start(self, never, only_cut)
        self._freed = [(g, s) for g in sm_groups for s in range(self.ctas_per_sm)]
        self._first_wave = True
        self._dispatch()
        self._first_wave = False

    # --- bookkeeping ------------------------------------------------------------------
    def adopt_group(self, g: CtaGroup) -> None:
        """Count a group split off another one."""
        self.live += 1
        self.groups_made += 1

    def group_done(self, g: CtaGroup) -> None:
        """A group has finished its program: free its slots, dispatch or end the kernel."""
        env = self.sim.env
        if self.sim.tracer is not None:
            self.sim.tracer.cta_span(self, g, env.now)
        for layer in g.layers:
            g.smg.slots[layer] = None
            self._freed.append((g.smg, layer))
        self.live -= 1
        if self._cut is not None:
            self._cut.group_done(g)
        if self.next_cta < self.end_cta:
            if not self._dispatch_pending:
                self._dispatch_pending = True
                call_later(env, 0, self._dispatch, DISPATCH_PRIORITY)  # after this tick's others
        elif self.live == 0 and not self._placing:
            self._finish()

    def _finish(self) -> None:
        if self.end_tick is None:
            self.end_tick = self.sim.now
            self.done.succeed()

    # --- dispatch ---------------------------------------------------------------------
    def _dispatch(self, _event: Event | None = None) -> None:
        self._dispatch_pending = False
        # Extrapolation assumes nothing but the engine changes the GPU (Sim.may_extrapolate).
        skip = self.sim.tracer is None and self.sim.may_extrapolate()
        if self.aggregated and skip and self._whole_gpu_free():
            self._steady_state()
        if self._stream is not None and skip:
            self._stream.at_dispatch()
        if self._cut is not None and skip:
            self._cut.at_dispatch()
        if self.simulated_ctas > self._ctas_budget:
            raise wave_budget.past(self, self.simulated_ctas)
        freed = sorted(self._freed, key=lambda e: (e[1], e[0].sm0))
        self._freed = []
        total = self.end_cta
        assigned: dict[int, tuple[SmGroup, list[tuple[int, int, int]]]] = {}
        for smg, layer in freed:
            if self.next_cta >= total:
                break
            take = min(smg.size, total - self.next_cta)
            assigned.setdefault(smg.sm0, (smg, []))[1].append((layer, self.next_cta, take))
            self.next_cta += take
            self.simulated_ctas += take
        self._placing = True
        for sm0 in sorted(assigned):
            smg, items = assigned[sm0]
            self._place(smg, items)
        self._placing = False
        if self.live == 0 and self.next_cta >= total:
            self._finish()  # an empty grid, or groups that finished at once

    def _whole_gpu_free(self) -> bool:
        if self.live or len(self._freed) != self.ctas_per_sm:
            return False
        smg = self._freed[0][0]
        return smg.size == self.sim.rates.sm_count and all(e[0] is smg for e in self._freed)

    def _steady_state(self) -> None:
        """At a wave boundary: record it, and skip whole periods once the waves repeat."""
        now = self.sim.env.now
        self._waves.append((now, self.next_cta, astuple(self.counters)))
        w = self._waves
        for p in PERIODS:
            if len(w) < 2 * p + 1:
                break
            a, b, c = w[-1 - 2 * p], w[-1 - p], w[-1]
            if abs((c[0] - b[0]) - (b[0] - a[0])) > PERIOD_TOLERANCE_TICKS:
                continue
            if c[1] - b[1] != b[1] - a[1]:
                continue
            delta = tuple(y - x for x, y in zip(b[2], c[2], strict=True))
            if delta != tuple(y - x for x, y in zip(a[2], b[2], strict=True)):
                continue
            ctas = c[1] - b[1]
            if self._aligned and ctas % (self.grid.blocks_per_bh * self.kv_group):
                continue
            skip = (self.end_cta - self.next_cta) // ctas - 1
            if ctas <= 0 or skip < 1:
                return
            self.next_cta += skip * ctas
            self.sim.skipped_ticks += skip * (c[0] - b[0])
            for f, d in zip(self.counters.__dataclass_fields__, delta, strict=True):
                setattr(self.counters, f, getattr(self.counters, f) + skip * d)
            self.waves_skipped += skip * p
            self._waves.clear()
            return

    def _place(self, smg: SmGroup, items: list[tuple[int, int, int]]) -> None:
        """Start CTAs ``items`` = [(slot, first CTA, count)] on ``smg``, splitting it as needed."""
        if self.grid.lump_by_bh and len(self.sm_groups) >= LUMP_MAX_SM_GROUPS:
            self.grid.lump_by_bh = False  # cut often enough: lump across batch-heads (lumped.py)
        cuts = set()
        for _layer, start, take in items:
            if take < smg.size:
                cuts.add(take)
            for first, _end, _cls in self.grid.class_runs(start, start + take):
                if first > start:
                    cuts.add(first - start)
        pieces = [(0, smg)]
        for cut in sorted(cuts):
            offset, last = pieces[-1]
            pieces.append((cut, last.split(self, cut - offset)))
            self.sm_groups.append(pieces[-1][1])
        for offset, piece in pieces:
            by_class: dict[object, tuple[list[int], list[int]]] = {}
            for layer, start, take in items:
                if offset >= take:
                    continue  # the grid ran out before this SM: the slot stays free
                cls = self.grid.class_at(start + offset)
                # Every slot is a group of its own, on both paths: co-resident CTAs of one
                # class do not stay in lockstep (their phases queue for the SM's schedulers,
                # so one CTA's loads run under another's compute). The aggregated path lumps
                # identical SMs only.
                key = (cls, layer)
                layers, starts = by_class.setdefault(key, ([], []))
                layers.append(layer)
                starts.append(start + offset)
            ages = self._age_scales(offset, items)
            for key, (layers, starts) in by_class.items():
                cls = key[0]
                # (A lumped group picks its plan from its members: lumped.py.)
                kind = LumpedGroup if cls <= LUMPED else CtaGroup
                g = kind(self, self.plans[cls], piece, layers, starts)
                g.work_scale = self._work_scale() * ages.get(key[1], 1.0)
                for layer in layers:
                    piece.slots[layer] = g
                self.live += 1
                self.groups_made += 1
                self._count_work(g)
                g.begin()

    def _age_scales(self, offset: int, items: list[tuple[int, int, int]]) -> dict[int, float]:
        """Slot -> work scale of the first wave's CTAs on a piece's SMs (mate_age.py): only
        where every slot of those SMs starts a CTA now, the older (earlier) slots less."""
        if not self._first_wave or self.mate_ratio == 1.0:
            return {}
        slots = sorted(layer for layer, _start, take in items if offset < take)
        if len(slots) < self.ctas_per_sm:
            return {}
        return dict(zip(slots, rank_scales(self.mate_ratio, len(slots)), strict=True))

    def _work_scale(self) -> float:
        """The next group's SM work over its class's: ``1 + scatter * z`` (1 without scatter)."""
        scatter = self.rates.cta_scatter
        if scatter <= 0:
            return 1.0
        u = ((self.groups_made + 0.5) * _GOLDEN) % 1.0
        return 1.0 + scatter * _NORMAL.inv_cdf(min(max(u, 1e-6), 1 - 1e-6))

    def _count_work(self, g: CtaGroup) -> None:
        c = self.counters
        runs = g.bh_runs() if self.grid.mixed else [(0, 0, g.members, g.plan.index)]
        for _bh, _b, m, cls in runs:
            t = self.plans[cls].totals
            c.ctas += m
            c.mma_flops += m * t["mma_flops"]
            c.fp32_ops += m * t["fp32_ops"]
            c.exp_ops += m * t["exp_ops"]
            c.smem_traffic_bytes += m * t["smem_bytes"]
            c.smem_fill_bytes += m * t["smem_fill_bytes"]
            c.barriers += m * t["barriers"]
