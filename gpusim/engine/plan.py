"""From a traced CTA program to what the engine runs: chunks of steps and the phases between them.

Coarsening. Consecutive steps of one kind (pipelined or not) are merged
``k`` at a time into a *chunk*: its work is the sum of its steps', its reads
and writes are merged per tensor into one tile reference named after the
chunk's first tile. ``k`` is fixed per kernel (the same for every CTA class),
so chunk boundaries fall on the same tiles in every CTA and the L2 sees the
same (coarser) tiles re-read. ``k = 1`` is the fully detailed program.

Phases. A phase is what a CTA does between two synchronisation points; the
engine starts every activity of a phase together and moves on when all have
finished. For a non-pipelined step (or any step when ``stages == 1``): load,
then compute. For a pipelined run with ``stages >= 2`` (double buffering):
the first step's load alone, then step ``i``'s compute together with step
``i+1``'s load, then the last compute alone. A pipelined run with one stage
loads a step's second tile (V) during its first product and the softmax, and
the next step's first tile (K) during its second product (P V).
On chunks the same shape holds
exactly for equal steps: a chunk's first step's load is moved into the phase
before it (``head`` fraction of its bytes), and its last step's compute into a
phase of its own (``tail`` fraction), so coarsening keeps ``first load +
sum of max(compute, load) + last compute``. A chunk's writes are issued in the
phase after its compute. Load latency: the full latency for a load that
nothing overlaps; ``latency / (stages - 1)`` per step for the steady-state
loads of a pipelined run (``stages - 1`` loads in flight hide each other's).
Memory-level parallelism: a pipelined run whose steps each load into a buffer
of their own (``Step.own_buffers``: the tiles are used after their step, e.g.
a softmax that keeps its whole row on chip) is not limited by ``stages``: all
its loads are in flight together, one latency for the run, and their bytes
move at the memory system's shared rates.
"""

from __future__ import annotations

from algorithms.base import ATOMIC_TENSORS
from algorithms.program import CtaProgram, Step
from gpusim.engine.chunks import Piece, lead, merge, runs, slices
from gpusim.engine.plan_types import Chunk, ClassPlan, Load, Phase, TileRef
from gpusim.engine.rates import SM_LANES, Rates

__all__ = ["Chunk", "ClassPlan", "Load", "Phase", "TileRef", "build_plan"]


def step_work(s: Step, rates: Rates) -> dict[str, float]:
    w = rates.work(s.mma_flops, s.fp32_ops, s.exp_ops, s.smem_bytes, s.smem_fill_bytes)
    w["issue"] = rates.issue(s.mma_flops, s.instrs)
    return w


def _step_time(s: Step, rates: Rates) -> float:
    return rates.step_ticks(step_work(s, rates)) + s.barriers * rates.barrier_ticks


def step_kind(s: Step) -> tuple:
    """What decides a step's compute time: steps of one kind take the same."""
    return (s.mma_flops, s.fp32_ops, s.exp_ops, s.smem_bytes, s.smem_fill_bytes, s.instrs,
            s.barriers)  # fmt: skip


def _step_times(s: Step, rates: Rates, memo: dict) -> tuple[float, float]:
    """The step's compute time and its second product's, computed once per kind of step
    (a causal kernel's classes repeat a few kinds of step thousands of times)."""
    key = step_kind(s)
    got = memo.get(key)
    if got is None:
        got = memo[key] = (_step_time(s, rates), _second_product_ticks(s, rates))
    return got


def _chunk(
    pieces: list[Piece], own_rows: dict[str, int], rates: Rates, memo: dict,
    bh_scale: dict[str, int],
) -> Chunk:  # fmt: skip
    # Sums over the pieces times their counts; a program without compressed steps has
    # pieces of one step each, and these are the step-by-step sums (the same floats).
    reads = merge(pieces, True, own_rows, bh_scale)
    writes = merge(pieces, False, own_rows, bh_scale)
    read_bytes = sum(r.nbytes for r in reads)
    loading = [(s, n) for s, n, _ in pieces if s.read_bytes > 0]
    head = loading[0][0].read_bytes / read_bytes if loading and read_bytes else 0.0
    work = rates.work(
        sum(n * s.mma_flops for s, n, _ in pieces),
        sum(n * s.fp32_ops for s, n, _ in pieces),
        sum(n * s.exp_ops for s, n, _ in pieces),
        sum(n * s.smem_bytes for s, n, _ in pieces),
        sum(n * s.smem_fill_bytes for s, n, _ in pieces),
    )
    work["issue"] = rates.issue(
        sum(n * s.mma_flops for s, n, _ in pieces), sum(n * s.instrs for s, n, _ in pieces)
    )
    both = [(n, _step_times(s, rates, memo)) for s, n, _ in pieces]
    total_time = sum(n * t for n, (t, _) in both)
    second = sum(n * sp for n, (_, sp) in both)
    return Chunk(
        reads=reads,
        writes=writes,
        read_bytes=read_bytes,
        write_bytes=sum(w.nbytes for w in writes),
        work=tuple((p, work[p]) for p in SM_LANES if work[p] > 0),
        barriers=sum(n * s.barriers for s, n, _ in pieces),
        micros=sum(n for _, n, _ in pieces),
        load_micros=sum(n for _, n in loading),
        head_frac=head,
        tail_frac=both[-1][1][0] / total_time if total_time > 0 else 1.0,
        second_product_frac=min(1.0, second / total_time) if total_time > 0 else 0.0,
        compute_ticks=total_time,
        atomic_write_bytes=sum(w.nbytes for w in writes if w.tensor in ATOMIC_TENSORS),
    )


def _second_product_ticks(s: Step, rates: Rates) -> float:
    """Time of a step's second matrix product alone: half its products and their operands.

    The attention steps do two products of equal work (``S = Q K^T`` and ``P V``); the
    softmax between them belongs to the first part.
    """
    if not s.mma_flops:
        return 0.0
    w = rates.work(s.mma_flops / 2, 0, 0, s.smem_bytes / 2, s.smem_fill_bytes / 2)
    w["issue"] = rates.issue(s.mma_flops / 2, 0)
    return rates.step_ticks(w)


def _has_compute(c: Chunk) -> bool:
    return bool(c.work) or c.barriers > 0


class _PhaseBuilder:
    """Appends phases, carrying each chunk's writes into the phase after its compute."""

    def __init__(self, chunks: list[Chunk]):
        self.chunks = chunks
        self.phases: list[Phase] = []
        self.carry: tuple[int, ...] = ()

    def add(self, lookups=(), loads=(), compute=None, computes_last=None) -> None:
        """Append a phase (dropping empty parts); ``computes_last``: the chunk it finishes."""
        loads = tuple(ld for ld in loads if ld.frac > 1e-12 and self.chunks[ld.chunk].read_bytes)
        lookups = tuple(c for c in lookups if self.chunks[c].read_bytes)
        if compute is not None and (
            compute[1] <= 1e-12 or not _has_compute(self.chunks[compute[0]])
        ):
            compute = None
        if lookups or loads or compute or self.carry:
            self.phases.append(Phase(tuple(lookups), loads, compute, self.carry))
            self.carry = ()
        if computes_last is not None and self.chunks[computes_last].writes:
            # A chunk with nothing to compute still has its writes issued after it.
            self.carry = (*self.carry, computes_last)

    def finish(self) -> list[Phase]:
        """The phases, with a last one for writes still carried."""
        if self.carry:
            self.add()
        return self.phases


def _pipelined_phases(b: _PhaseBuilder, ids: list[int], overlap: float) -> None:
    """Double buffering; ``overlap``: latencies charged per steady-state load."""
    ch = b.chunks
    first = ch[ids[0]]
    first_load = Load(ids[0], first.head_frac, 1.0 if first.load_micros else 0.0)
    b.add(lookups=(ids[0],), loads=(first_load,))
    for n, c in enumerate(ids):
        cur = ch[c]
        rest = max(0, cur.load_micros - 1)
        loads = [Load(c, 1.0 - cur.head_frac, rest * overlap)]
        lookups: tuple[int, ...] = ()
        if n + 1 < len(ids):
            nxt = ids[n + 1]
            nx = ch[nxt]
            loads.append(Load(nxt, nx.head_frac, overlap if nx.load_micros else 0.0))
            lookups = (nxt,)
            b.add(lookups=lookups, loads=loads, compute=(c, 1.0), computes_last=c)
        else:
            b.add(loads=loads, compute=(c, 1.0 - cur.tail_frac))
            b.add(compute=(c, cur.tail_frac), computes_last=c)


def _single_buffer_phases(b: _PhaseBuilder, ids: list[int]) -> None:
    """One stage, one buffer per tile (flash2_tc.cu and flash2_simt.cu with STAGES = 1).

    A step needs its first tile (K) for the first product and the rest (V) only for the
    second, so the kernel loads V during ``S = Q K^T`` and the softmax, and the next
    step's K during ``P V``, once every warp is done with this K. Each load has one
    latency of its own (one buffer: nothing else in flight hides it). A chunk of several
    steps does the same with its compute split in the same shares; the K tiles of its
    later steps move during its second part, behind one latency each.
    """
    ch = b.chunks

    def k_share(c: Chunk) -> float:
        return c.reads[0].nbytes / c.read_bytes if len(c.reads) > 1 else 1.0

    first = ch[ids[0]]
    b.add(
        lookups=(ids[0],),
        loads=(Load(ids[0], k_share(first) * first.head_frac, 1.0 if first.load_micros else 0.0),),
    )
    for n, c in enumerate(ids):
        cur = ch[c]
        k = k_share(cur)
        units = float(cur.load_micros)
        split = cur.second_product_frac if len(cur.reads) > 1 else 0.0
        b.add(loads=(Load(c, 1.0 - k, units),), compute=(c, 1.0 - split))
        loads = [Load(c, k * (1.0 - cur.head_frac), max(0.0, units - 1))]
        lookups: tuple[int, ...] = ()
        if n + 1 < len(ids):
            nx = ch[ids[n + 1]]
            loads.append(
                Load(ids[n + 1], k_share(nx) * nx.head_frac, 1.0 if nx.load_micros else 0.0)
            )
            lookups = (ids[n + 1],)
        b.add(lookups=lookups, loads=loads, compute=(c, split), computes_last=c)


def build_plan(
    key: object,
    index: int,
    rep_block: int,
    blocks_per_bh: int,
    program: CtaProgram,
    own_rows: dict[str, int],
    k: int,
    stages: int,
    rates: Rates,
    memo: dict | None = None,
    bh_scale: dict[str, int] | None = None,
) -> ClassPlan:
    """Chunks of ``k`` steps and the phases that run them, for one CTA class.

    ``memo``: step times already computed at ``rates`` (shared by the plans of one kernel);
    ``bh_scale``: the kernel's tensors read at several batch-heads by one CTA (merge).
    """
    memo = {} if memo is None else memo
    chunks: list[Chunk] = []
    run_ids: list[tuple[bool, list[int]]] = []
    for run in runs(program.steps):
        ids = []
        for pieces in slices(run, k, lead(run, k)):
            ids.append(len(chunks))
            chunks.append(_chunk(pieces, own_rows, rates, memo, bh_scale or {}))
        run_ids.append((run[0].pipelined, ids))
    b = _PhaseBuilder(chunks)
    for (pipelined, ids), run in zip(run_ids, runs(program.steps), strict=True):
        loading = [s for s in run if s.reads]
        if pipelined and loading and all(s.own_buffers for s in loading):
            # Every load has a buffer of its own and none waits on a compute: the run's
            # loads are all in flight together behind the first one's latency, as many as
            # the CTA issues, not ``stages - 1``.
            _pipelined_phases(b, ids, 0.0)
            continue
        if pipelined and stages >= 2:
            _pipelined_phases(b, ids, 1.0 / (stages - 1))
            continue
        if pipelined and rates.mma_pipe == "tensor":
            _single_buffer_phases(b, ids)
            continue
        # Otherwise (and one stage on the CUDA cores: flash2_simt.cu waits for K and V
        # together before a tile), each step loads, then computes.
        for c in ids:
            cur = chunks[c]
            b.add(lookups=(c,), loads=(Load(c, 1.0, float(cur.load_micros)),))
            b.add(compute=(c, 1.0), computes_last=c)
    totals = program.totals()
    return ClassPlan(key, index, rep_block, blocks_per_bh, chunks, b.finish(), totals, program)


def min_cta_phases(program: CtaProgram) -> int:
    """A lower bound on the phases :func:`build_plan` gives ``program`` at one step per
    chunk: every step that computes has a phase of its own (its loads may share another's),
    and a program with any step has at least one."""
    computing = sum(
        s.repeat for s in program.steps if s.mma_flops or s.fp32_ops or s.exp_ops or s.smem_bytes
        or s.barriers
    )  # fmt: skip
    return max(computing, 1 if program.steps else 0)


def _refs_shape(refs: tuple[TileRef, ...]) -> tuple:
    # Which tiles a class moves is not timing: a CTA group looks each class's own tiles up
    # in the L2 (cta_group.py), so classes alike but for where their tiles sit (the slices
    # of split-KV decoding) time as one. Own tiles may differ in size (a ragged last
    # block); shared ones must have the same sizes.
    return tuple((r.tensor, r.own_rows) if r.own_rows else (r.tensor, 0, r.nbytes) for r in refs)


def timing_signature(plan: ClassPlan) -> tuple:
    """What decides a class's timing but for the sizes of its own tiles.

    Classes with equal signatures (a full block and the ragged last one, whose
    arithmetic is padded to the full tile) run as one group; their bytes are
    still counted per class.
    """
    return (
        len(plan.phases),
        tuple(
            (
                c.micros,
                c.load_micros,
                c.work,
                c.barriers,
                _refs_shape(c.reads),
                _refs_shape(c.writes),
            )
            for c in plan.chunks
        ),
    )
