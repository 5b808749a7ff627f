"""One SM running a kernel's compiled loop: warps, schedulers, pipes, scoreboards, barriers.

The pipe model of the engine knows how much work a step is, not in what order the compiler
put it: one instance's loop waits on its own dependences (a softmax chain, an ldmatrix
before its product) where another's hides them. This model replays the loop's SASS, one
step after another, for every warp of the CTAs an SM holds:

- each of the SM's schedulers (the profile's ``warp_schedulers_per_sm``, 4 on the GPUs
  profiled) issues at most one instruction per cycle, from its warps in
  least-recently-issued order (warp ``i`` of the SM sits on scheduler ``i % schedulers``);
- a warp waits the stall count the compiler wrote after each instruction (fixed-latency
  dependences), for the scoreboards its instruction waits on (variable-latency results:
  ldmatrix, shuffles, MUFU, constant and shared loads), for the registers an in-flight
  HMMA writes (the tensor pipe's interlock), and at ``BAR.SYNC`` for its CTA's other warps;
- an instruction holds its scheduler's pipe (tensor, MUFU, ALU, FMA, shuffle) for the
  cycles measured per warp-instruction, ldmatrix and shared loads hold the SM's shared
  memory for their bytes at its measured bandwidth;
- global loads (cp.async) and their waits cost their issue only: the engine's memory model
  times them.

Every figure comes from the ``sass_timing`` microbenchmark (or the profile's shared-memory
bandwidth) and the compiler's own control codes; nothing is fitted to an attention timing.
The result is the cycles one step of every resident CTA takes in steady state, averaged
over how the co-resident CTAs' steps line up (:func:`resident_step_cycles`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpusim.kernel_catalog.sass_instr import Instr

NO_BARRIER = 7


@dataclass(frozen=True)
class CoreTiming:
    """Cycles of the SM core, from the sass_timing microbenchmark."""

    latency: dict[str, float]  # result latency of scoreboarded ops, by opcode
    pipe_cycles: dict[str, float]  # cycles a warp-instruction holds its scheduler's pipe
    op_cycles: dict[str, float]  # opcodes that hold their pipe longer than its other ops
    hmma_result_cycles: float  # an HMMA's result, for a non-HMMA reader
    hmma_accumulate_cycles: float  # an HMMA's result, for the next HMMA on that accumulator
    barrier_cycles_4_warps: float
    barrier_cycles_8_warps: float
    smem_bytes_per_cycle: float
    schedulers: int  # warp schedulers per SM
    read_barrier_cycles: float = 4.0  # operands read (stores, copies) before reuse
    #: local memory (spills): a load's load-to-use latency and the cycles an access holds the
    #: SM's L1 data pipe, where measured (local_mem); else integer instructions of 20 cycles
    local_latency: float | None = None
    local_access_cycles: float | None = None
    #: the co-resident CTAs' relative phases a step is averaged over (None: :data:`PHASES`);
    #: 1 replays them in one phase (a profile's ``co_resident_phases``; none ships it)
    phases: int | None = None

    @classmethod
    def from_profile(cls, profile) -> CoreTiming | None:
        """The profile's measured core cycles (``sass_core_cycles``), or None without them."""
        c = profile.sass_core_cycles
        if c is None:
            return None
        return cls.from_cycles(
            c.value,
            profile.smem_bandwidth_bytes_per_clk_per_sm.value,
            profile.warp_schedulers_per_sm.value,
        )

    @classmethod
    def from_cycles(
        cls, v: dict[str, float], smem_bytes_per_cycle: float, schedulers: int
    ) -> CoreTiming:
        """From a ``sass_core_cycles`` value, the shared memory's bytes per cycle and the
        SM's warp schedulers."""
        return cls(
            latency={
                "LDSM": v["ldsm_latency"],
                "LDS": v["ldsm_latency"],  # a shared load of the same width
                "SHFL": v["shfl_latency"],
                "MUFU": v["mufu_latency"],
            },
            pipe_cycles={
                "tensor": v["hmma_pipe"],
                "mufu": v["mufu_pipe"],
                "alu": v["alu_pipe"],
                "fma": v["fma_pipe"],
                "shfl": v["shfl_pipe"],
            },
            op_cycles={"IMAD": v["imad_pipe"]},
            hmma_result_cycles=v["hmma_result"],
            hmma_accumulate_cycles=v["hmma_accumulate"],
            barrier_cycles_4_warps=v["barrier_4_warps"],
            barrier_cycles_8_warps=v["barrier_8_warps"],
            smem_bytes_per_cycle=smem_bytes_per_cycle,
            schedulers=schedulers,
            local_latency=v.get("local_latency"),
            local_access_cycles=v.get("local_access"),
            phases=int(v["co_resident_phases"]) if "co_resident_phases" in v else None,
        )

    def barrier_cycles(self, warps: int) -> float:
        lo, hi = self.barrier_cycles_4_warps, self.barrier_cycles_8_warps
        return lo + (hi - lo) * (warps - 4) / 4


#: Which pipe each opcode holds (anything else: the ALU's integer/logic pipe).
PIPES = {
    "HMMA": "tensor",
    "MUFU": "mufu",
    "FFMA": "fma",
    "FMUL": "fma",
    "FADD": "fma",
    "IMAD": "fma",  # Nsight counts IMAD on the FMA pipe (its heavy half: 2 cycles, measured)
    "SHFL": "shfl",
    "F2I": "mufu",  # conversions: the XU pipe, with the transcendentals (Nsight Compute's
    "I2F": "mufu",  # pipe list); in no committed loop, so the committed table is unchanged
    "LDSM": "smem",
    "LDS": "smem",
    "STS": "smem",
}
#: Bytes of the SM's shared memory one warp-instruction moves (ldmatrix .x4, 128-bit LDS/STS).
SMEM_BYTES = {"LDSM": 512, "LDS": 512, "STS": 512}
#: Local-memory accesses (spills): timed on the SM's L1 data pipe where the profile measured them.
LOCAL_OPS = ("LDL", "STL")
#: Opcodes that cost their issue slot only here (copies and their waits: the memory model's).
MEMORY_OPS = ("LDGSTS", "LDGDEPBAR", "DEPBAR")
UNIFORM_PREFIX = "U"  # uniform-datapath instructions: their own pipe, no contention modelled


@dataclass
class _Warp:
    cta: int
    sched: int
    pc: int = 0
    trips: int = 0
    ready: float = 0.0
    last_issue: float = -1.0
    sb: list[float] = field(default_factory=lambda: [0.0] * 6)
    reg_ready: dict[int, float] = field(default_factory=dict)
    acc_ready: dict[int, float] = field(default_factory=dict)
    at_barrier: bool = False
    trip_end: list[float] = field(default_factory=list)
    own: float = 0.0  # earliest issue of the next instruction by the warp's own state


@dataclass(frozen=True, slots=True)
class _Op:
    """What the replay needs of one instruction, worked out once per loop."""

    ins: Instr
    pipe: str
    gated: bool  # waits for its scheduler's pipe
    holds: float  # cycles it holds that pipe (0: none)
    smem_service: float  # cycles it holds the shared memory (0: none)
    latency: float
    waits: tuple[int, ...]  # scoreboards
    acc_srcs: tuple[int, ...]  # HMMA: sources that are its own accumulator
    srcs: tuple[int, ...]  # other sources
    hmma: bool
    bar: bool


def _ops(path: list[Instr], t: CoreTiming) -> list[_Op]:
    out = []
    local = t.local_access_cycles is not None and t.local_latency is not None
    for ins in path:
        is_local = local and ins.op in LOCAL_OPS
        pipe = "smem" if is_local else PIPES.get(ins.op, "alu")
        uniform = ins.op.startswith(UNIFORM_PREFIX) or ins.op in MEMORY_OPS
        gated = pipe != "smem" and not uniform
        hmma = ins.op == "HMMA"
        service = SMEM_BYTES.get(ins.op, 128) / t.smem_bytes_per_cycle if pipe == "smem" else 0.0
        out.append(_Op(
            ins, pipe, gated,
            (t.op_cycles.get(ins.op) or t.pipe_cycles.get(pipe, 1.0)) if gated else 0.0,
            t.local_access_cycles if is_local else service,
            t.local_latency if is_local else t.latency.get(ins.op, 20.0),
            tuple(b for b in range(6) if ins.wait >> b & 1),
            tuple(r for r in ins.src if r in ins.dst) if hmma else (),
            tuple(r for r in ins.src if r not in ins.dst) if hmma else ins.src,
            hmma, ins.op == "BAR",
        ))  # fmt: skip
    return out


def _first(pick: tuple) -> int:
    return pick[0]


def _own_ready(w: _Warp, op: _Op) -> float:
    """When the warp's own dependences let ``op`` issue (its pipe aside)."""
    e = w.ready
    for b in op.waits:
        if w.sb[b] > e:
            e = w.sb[b]
    if op.acc_srcs:
        acc = w.acc_ready
        for r in op.acc_srcs:
            x = acc.get(r, 0.0)
            if x > e:
                e = x
    if op.srcs:
        reg = w.reg_ready
        for r in op.srcs:
            x = reg.get(r, 0.0)
            if x > e:
                e = x
    return e


def step_cycles(
    path: list[Instr],
    ctas: int,
    warps_per_cta: int,
    t: CoreTiming,
    trips: int = 5,
    start_cycles: tuple[float, ...] | None = None,
) -> float:
    """Cycles per step in steady state with ``ctas`` CTAs of ``warps_per_cta`` warps on one SM,
    each warp running ``path`` (one loop step) ``trips`` times; the first trip is warm-up.
    ``start_cycles``: when each CTA's warps may first issue (default: all at once)."""
    if not path:
        return 0.0
    n = len(path)
    ops = _ops(path, t)
    warps = [
        _Warp(cta=c, sched=(c * warps_per_cta + w) % t.schedulers,
              ready=start_cycles[c] if start_cycles else 0.0)
        for c in range(ctas)
        for w in range(warps_per_cta)
    ]  # fmt: skip
    for w in warps:
        w.own = _own_ready(w, ops[0])
    scheds = range(t.schedulers)
    by_sched = [[(i, w) for i, w in enumerate(warps) if w.sched == s] for s in scheds]
    pipe_free = [dict.fromkeys(("tensor", "mufu", "fma", "alu", "shfl"), 0.0) for _ in scheds]
    smem_free = 0.0
    bar_arrived: dict[int, list[_Warp]] = {c: [] for c in range(ctas)}
    bar_cost = t.barrier_cycles(warps_per_cta)
    now = 0.0
    running = len(warps)
    # A scheduler's pick depends on its warps and its pipes only, not on the cycle, so it
    # is worked out again only after one of its warps issued or left a barrier (``dirty``):
    # most cycles most schedulers wait, and the picks were most of the replay's time.
    chosen: list[tuple[int, float, _Warp] | None] = [None] * len(by_sched)
    dirty = [True] * len(by_sched)

    while running:
        picks = []
        for sched, group in enumerate(by_sched):
            if not dirty[sched]:
                got = chosen[sched]
                if got is not None:
                    picks.append(got)
                continue
            dirty[sched] = False
            free = pipe_free[sched]
            pick = None
            pe = pli = 0.0
            first = 0
            for i, w in group:
                if w.at_barrier or w.trips >= trips:
                    continue
                op = ops[w.pc]
                e = w.own
                if op.gated and free[op.pipe] > e:
                    e = free[op.pipe]
                # the least recently issued warp first (sass_timing: two warps on a scheduler
                # end together, which oldest-first issue would not give)
                if pick is None:
                    first = i
                elif e > pe or (e == pe and w.last_issue >= pli):
                    continue
                pick, pe, pli = w, e, w.last_issue
            if pick is not None:
                got = chosen[sched] = (first, pe, pick)
                picks.append(got)
            else:
                chosen[sched] = None
        if not picks:
            raise RuntimeError("every warp waits at a barrier that cannot open")
        lo = picks[0][1]
        for p in picks:
            if p[1] < lo:
                lo = p[1]
        if lo > now:
            now = lo
        # schedulers issue in the order of their first waiting warp (ties share the memory)
        if len(picks) > 1:
            picks = [p for p in picks if p[1] <= now]
            if len(picks) > 1:
                picks.sort(key=_first)
        for _i, _e, w in picks:
            op = ops[w.pc]
            ins = op.ins
            dirty[w.sched] = True
            w.last_issue = now
            w.ready = now + max(1, ins.stall)
            lat = op.latency
            if op.smem_service:
                # Queued for the SM's shared memory (the MIO queue): the warp goes on; the
                # result comes a latency after the request's turn (the latency was measured
                # with the memory idle, its own service included).
                start = max(now, smem_free)
                smem_free = start + op.smem_service
                lat += start - now
            elif op.gated:
                pipe_free[w.sched][op.pipe] = now + op.holds
            if ins.wbar != NO_BARRIER:
                w.sb[ins.wbar] = max(w.sb[ins.wbar], now + lat)
            if ins.rbar != NO_BARRIER:
                w.sb[ins.rbar] = max(w.sb[ins.rbar], now + t.read_barrier_cycles)
            if op.hmma:
                for r in ins.dst:
                    w.reg_ready[r] = now + t.hmma_result_cycles
                    w.acc_ready[r] = now + t.hmma_accumulate_cycles
            elif ins.dst:
                for r in ins.dst:  # a register rewritten: no HMMA result pending in it
                    w.reg_ready.pop(r, None)
            w.pc += 1
            if w.pc == n:
                w.pc = 0
                w.trips += 1
                w.trip_end.append(now)
                if w.trips >= trips:
                    running -= 1
            w.own = _own_ready(w, ops[w.pc])
            if op.bar:
                w.at_barrier = True
                group = bar_arrived[w.cta]
                group.append(w)
                if len(group) == warps_per_cta:
                    for v in group:
                        dirty[v.sched] = True
                        v.at_barrier = False
                        v.ready = max(v.ready, now + bar_cost)
                        v.own = _own_ready(v, ops[v.pc])
                    group.clear()
        now += 1
    per = [(w.trip_end[-1] - w.trip_end[0]) / (trips - 1) for w in warps]
    return max(per)


#: Points of the midpoint rule over the co-resident CTAs' relative phase (see below). 16
#: points are within 1.6 % (mean 0.5 %) of 32 on the tuning proof's 52 multi-CTA launches.
PHASES = 16


def resident_step_cycles(
    path: list[Instr], ctas: int, warps_per_cta: int, t: CoreTiming, phases: int | None = None
) -> float:
    """:func:`step_cycles` averaged over how co-resident CTAs' steps line up.

    The replay is deterministic: CTAs that start together stay locked in one phase, and
    which phase that is moves a step of two or three attention CTAs by up to 25 %. On the
    GPU the CTAs of an SM start at different times and their loads arrive at different
    times, so that lock is not the steady state. This takes the mean over the relative
    phase ``s`` in [0, 1), CTA ``i`` starting ``i * s / ctas`` of a lone CTA's step after
    CTA 0 (from aligned to evenly spread), by the midpoint rule with ``phases`` points.
    On the smem_overlap loops (co-resident CTAs launched together, no global loads) it is
    within 4.9 % on average (aligned: 5.4 %), and too fast by 7 % on average where the
    aligned replay was right on average: those loops keep more of their launch alignment
    than an attention kernel's CTAs do (-21 .. +4 %, against -19 .. +32 % aligned).

    ``phases`` (default: the timing's ``phases``, else :data:`PHASES`) of 1 replays the CTAs in
    one phase. cta_phase (data/h200/2026-12-05_calibration_cta_phase) found the H200's
    throughput the same whatever offset co-resident CTAs enter a loop at (0.0-1.0 %), where
    this replay keeps the offset and moves by up to 38 %; one phase fits those loops better,
    but on attention kernels the average won (held-out set 19: 3.98 % against 5.31 %).
    """
    if phases is None:
        phases = t.phases or PHASES
    if ctas <= 1 or phases <= 1:
        return step_cycles(path, ctas, warps_per_cta, t)
    lone = step_cycles(path, 1, warps_per_cta, t)
    runs = [
        step_cycles(path, ctas, warps_per_cta, t,
                    start_cycles=tuple(i * (k + 0.5) / phases * lone / ctas for i in range(ctas)))
        for k in range(phases)
    ]  # fmt: skip
    return sum(runs) / len(runs)
