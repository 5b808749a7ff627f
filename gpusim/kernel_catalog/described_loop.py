"""One steady step of flash2_tc.cu's K/V loop, written from the tile description (a prototype).

The SM core model (:mod:`gpusim.engine.core_model`) replays the compiled loops' SASS; an
instance that was never compiled has none. This writes the step a warp of the project's
mma.sync kernel (``gpusim/kernels/flash2_tc.cu``) executes from its template arguments only,
never reading a compiled loop: the instructions of the kernel's source (the counts of
:mod:`gpusim.instruction_mix`), their register dependences, the basic blocks its branches
make, ordered by a list scheduler as a compiler's would be, with control codes written the
way nvcc writes them. What it leaves out is listed in reports/described_loop_look/README.md.

Latencies and pipe cycles are the profile's ``sass_core_cycles`` (the ones the core model
replays with). Fixed-latency results (ALU, FMA pipe) take :data:`FIXED_LATENCY` cycles.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from dataclasses import dataclass

from gpusim.instruction_mix import COPY_BYTES, WARP_THREADS
from gpusim.kernel_catalog.sass_instr import Instr

#: Cycles from a fixed-latency instruction's issue to a dependent one's on the same pipe: 4 on
#: every NVIDIA SM since Volta (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
#: Microbenchmarking", arXiv:1804.06826, sec. 4: FFMA, FADD, IADD3, LOP3 ... 4 cycles); one more
#: when the reader is on another pipe or is a memory or shuffle op (nvcc's control codes: 5
#: between an ALU result and an FMA, shuffle or address reader, over all the committed loops).
FIXED_LATENCY = 4
CROSS_PIPE = 1
#: Stall nvcc writes on a branch (5-6 in the committed loops' forward branches); ptxas also
#: drains every fixed-latency result in flight (an HMMA's accumulator included) before a
#: branch, as it does not track them across basic blocks (the NOP + BRA pairs of ~24 cycles).
BRANCH_STALL = 5
MAX_STALL = 15  # the control code's 4-bit field; nvcc puts a NOP before a longer wait
SCOREBOARDS = 6  # dependency barriers SB0-SB5 of the control code
#: Pipes, as the core model assigns them (gpusim.engine.core_model.PIPES; this layer may not
#: import the engine, a test keeps the two equal).
PIPES = {"HMMA": "tensor", "MUFU": "mufu", "FFMA": "fma", "FMUL": "fma", "FADD": "fma",
         "IMAD": "fma", "SHFL": "shfl", "LDSM": "smem", "LDS": "smem"}  # fmt: skip
VARIABLE = ("LDSM", "LDS", "MUFU", "SHFL")  # results on a scoreboard
ORDERED = ("LDSM", "LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR")  # kept in order by the fences
FENCES = ("LDGDEPBAR", "DEPBAR", "BAR")
LDSM_BYTES = 512  # ldmatrix .x4: 32 lanes x 16 bytes


@dataclass
class _Node:
    op: str
    dst: tuple[int, ...]
    src: tuple[int, ...]
    region: int  # 0: the loop body; k: the k-th guarded region (its branch opens it)
    skips: tuple[int, ...] = ()  # registers a region the branch jumps over may write
    opens: int = 0  # the region this branch guards (0: none)


@dataclass(frozen=True)
class DescribedStep:
    """A described step: its instructions in issue order, the registers it reads before it
    writes them (loop-carried or loop-invariant), and its dependences as (earlier, later)
    positions in ``path``."""

    path: list[Instr]
    carried: frozenset[int]
    edges: tuple[tuple[int, int], ...]


class _Program:
    """The step in source order: nodes, fresh registers, guarded regions."""

    def __init__(self) -> None:
        self.nodes: list[_Node] = []
        self.region = 0
        self.regions = 0
        self._next_reg = 0

    def regs(self, n: int) -> tuple[int, ...]:
        first, self._next_reg = self._next_reg, self._next_reg + n
        return tuple(range(first, first + n))

    def emit(self, op: str, src: tuple[int, ...] = (), dst: int | tuple[int, ...] = 1):
        """Append ``op`` reading ``src``; ``dst``: registers it writes, or how many fresh ones."""
        out = self.regs(dst) if isinstance(dst, int) else dst
        self.nodes.append(_Node(op, out, tuple(src), self.region))
        return out

    def guard(self, src: tuple[int, ...]) -> None:
        """``if (...) {``, taken in a steady step: what follows up to :meth:`end` stays
        between its branch and the join; the rest of the loop moves freely around it."""
        self.regions += 1
        self.nodes.append(_Node("BRA", (), tuple(src), 0, opens=self.regions))
        self.region = self.regions

    def end(self) -> None:
        self.region = 0

    def skip(self, src: tuple[int, ...], writes: tuple[int, ...] = ()) -> None:
        """A branch over code a steady step does not run (the mask, Q's first load), which
        may write ``writes``: their readers stay after it, their writers before."""
        self.nodes.append(_Node("BRA", (), tuple(src), 0, skips=tuple(writes)))


# ---- the kernel's source, statement by statement ---------------------------------------


@dataclass(frozen=True)
class _Shape:
    d: int
    bn: int
    warps: int
    stages: int
    mt: int  # m16 tiles per warp
    copies: int  # 16-byte cp.async chunks per thread and tile

    @property
    def q_in_regs(self) -> bool:  # flash2_tc.cu's Q_IN_REGS
        return self.mt == 1 and self.d <= 128


def _copy_tile(p: _Program, s: _Shape, row: tuple, stage: tuple) -> None:
    """tc_load_tile: per 16-byte chunk the integer work instruction_mix counts (row, bounds
    test, zero-fill select, 64-bit global address in two, swizzle, shift, stage offset)."""
    for _ in range(s.copies):
        r = p.emit("IADD3", row)
        ok = p.emit("ISETP", r)
        size = p.emit("SEL", ok)
        lo = p.emit("LEA", r)
        hi = p.emit("LEA", r + lo)
        sw = p.emit("LOP3", row)
        sh = p.emit("SHF", sw)
        at = p.emit("IADD3", sh + stage)
        p.emit("LDGSTS", at + lo + hi + size, ())


def _compute_s(p: _Program, s: _Shape, sacc, qf, q_addr, k_base) -> None:
    for kk in range(s.d // 16):
        a = [qf[kk] if s.q_in_regs else p.emit("LDSM", q_addr[kk % 4], 4) for _ in range(s.mt)]
        for np_ in range(s.bn // 16):
            b = p.emit("LDSM", k_base[kk % 4], 4)
            for mt in range(s.mt):
                for half in range(2):
                    acc = sacc[mt][2 * np_ + half]
                    p.emit("HMMA", a[mt] + b[2 * half: 2 * half + 2] + (acc if kk else ()), acc)


def _softmax(p: _Program, s: _Shape, sacc, o, m, lsum, scale) -> list:
    """softmax_update for every row half (mt, h); returns P's packed pairs [mt][nt][h]."""
    nt_n = s.bn // 8
    pk = [[[None, None] for _ in range(nt_n)] for _ in range(s.mt)]
    for mt in range(s.mt):
        for h in range(2):
            mx = m[mt][h]
            for nt in range(nt_n):
                pair = p.emit("FMNMX", sacc[mt][nt][2 * h: 2 * h + 2])
                mx = p.emit("FMNMX", mx + pair)
            for _ in range(2):  # warp_max_xor over the quad: lanes 1 and 2 apart
                mx = p.emit("FMNMX", mx + p.emit("SHFL", mx))
            inf = p.emit("FSETP", mx)
            m_use = p.emit("FSEL", inf + p.emit("FMUL", mx + scale))
            alpha = p.emit("MUFU", p.emit("FFMA", m[mt][h] + scale + m_use))
            rs: tuple = ()
            for nt in range(nt_n):
                e0, e1 = (p.emit("MUFU", p.emit("FFMA", (x, *scale, *m_use)))
                          for x in sacc[mt][nt][2 * h: 2 * h + 2])  # fmt: skip
                pk[mt][nt][h] = p.emit("F2FP", e0 + e1)
                rs = p.emit("FADD", rs + p.emit("FADD", e0 + e1))
            p.emit("FFMA", lsum[mt][h] + alpha + rs, lsum[mt][h])
            for dt in range(s.d // 8):
                for e in (2 * h, 2 * h + 1):
                    p.emit("FMUL", (o[mt][dt][e], *alpha), (o[mt][dt][e],))
            p.emit("IMAD", mx, m[mt][h])  # m_i = mx: the loop carries it (IMAD.MOV)
    return pk


def _compute_pv(p: _Program, s: _Shape, o, pk, v_base) -> None:
    for kc in range(s.bn // 16):
        pa = [pk[mt][2 * kc][0] + pk[mt][2 * kc][1] + pk[mt][2 * kc + 1][0] + pk[mt][2 * kc + 1][1]
              for mt in range(s.mt)]  # fmt: skip
        for dp in range(s.d // 16):
            b = p.emit("LDSM", v_base[dp % 4], 4)
            for mt in range(s.mt):
                for half in range(2):
                    acc = o[mt][2 * dp + half]
                    p.emit("HMMA", pa[mt] + b[2 * half: 2 * half + 2] + acc, acc)


def _mask_test(p: _Program, j: tuple, sacc) -> None:
    """flash2_tile_needs_mask: k0, two compares, their or; the mask (skipped) writes S."""
    k0 = p.emit("IMAD", j)
    end = p.emit("IADD3", k0)
    test = p.emit("PLOP3", p.emit("ISETP", end) + p.emit("ISETP", end))
    p.skip(test, tuple(r for row in sacc for acc in row for r in acc))


def _program(s: _Shape) -> _Program:
    """The loop body of flash2_tc.cu for these template arguments, in source order."""
    p = _Program()
    dt_n, nt_n = s.d // 8, s.bn // 8
    # live across the loop: O, m, l, the counter, lane addresses, Q's fragments, scale_log2
    o = [[p.regs(4) for _ in range(dt_n)] for _ in range(s.mt)]
    m = [[p.regs(1) for _ in range(2)] for _ in range(s.mt)]
    lsum = [[p.regs(1) for _ in range(2)] for _ in range(s.mt)]
    j, scale = p.regs(1), p.regs(1)
    q_addr, k_addr, v_addr = ([p.regs(1) for _ in range(4)] for _ in range(3))
    qf = [p.regs(4) for _ in range(s.d // 16)] if s.q_in_regs else []
    sacc = [[p.regs(4) for _ in range(nt_n)] for _ in range(s.mt)]

    def load_q_branch() -> None:  # if (j == 0) load_q_regs(): not run in a steady step
        if s.q_in_regs:
            p.skip(p.emit("ISETP", j), tuple(r for f in qf for r in f))

    p.emit("DEPBAR", (), ())  # cp_async_wait: tile j has landed
    p.emit("BAR", (), ())  # __syncthreads
    if s.stages > 1:
        jn = p.emit("IADD3", j)  # j + STAGES - 1, its stage, both stages' byte offsets
        here = p.emit("IMAD", p.emit("IMAD", j))
        there = p.emit("IMAD", jn)
        k_base = [p.emit("IADD3", a + here) for a in k_addr]  # the ldmatrix bases' offsets
        v_base = [p.emit("IADD3", a + here) for a in v_addr]
        p.guard(p.emit("ISETP", jn))  # if (jn < n_tiles): the copies
        _copy_tile(p, s, jn, there)
        _copy_tile(p, s, jn, there)
        p.end()
        p.emit("LDGDEPBAR", (), ())
        load_q_branch()
        _compute_s(p, s, sacc, qf, q_addr, k_base)
        _mask_test(p, j, sacc)
        pk = _softmax(p, s, sacc, o, m, lsum, scale)
        _compute_pv(p, s, o, pk, v_base)
    else:  # one buffer each for K and V: three barriers, two commits and waits
        load_q_branch()
        _compute_s(p, s, sacc, qf, q_addr, k_addr)
        _mask_test(p, j, sacc)
        pk = _softmax(p, s, sacc, o, m, lsum, scale)
        p.emit("DEPBAR", (), ())
        p.emit("BAR", (), ())
        guard = p.emit("ISETP", j)
        p.guard(guard)  # if (j + 1 < n_tiles): K's copies
        _copy_tile(p, s, j, ())
        p.end()
        p.emit("LDGDEPBAR", (), ())
        _compute_pv(p, s, o, pk, v_addr)
        p.emit("BAR", (), ())
        p.guard(guard)  # V's copies, the same test
        _copy_tile(p, s, j, ())
        p.end()
        p.emit("LDGDEPBAR", (), ())
    p.emit("IADD3", j, j)  # ++j; j < n_tiles; back to the head (the last instruction)
    p.emit("BRA", p.emit("ISETP", j), ())
    return p


# ---- dependences, the list scheduler, control codes ------------------------------------


class _Timing:
    """Latencies and pipe holds the scheduler and the control codes use (sass_core_cycles)."""

    def __init__(self, c: Mapping[str, float], smem_bytes_per_cycle: float) -> None:
        self.var = {"LDSM": c["ldsm_latency"], "LDS": c["ldsm_latency"],
                    "MUFU": c["mufu_latency"], "SHFL": c["shfl_latency"]}  # fmt: skip
        self.hold = {"tensor": c["hmma_pipe"], "mufu": c["mufu_pipe"], "alu": c["alu_pipe"],
                     "fma": c["fma_pipe"], "shfl": c["shfl_pipe"],
                     "smem": LDSM_BYTES / smem_bytes_per_cycle}  # fmt: skip
        self.imad = c["imad_pipe"]
        self.hmma_result, self.hmma_acc = c["hmma_result"], c["hmma_accumulate"]

    def pipe_hold(self, op: str) -> float:
        return self.imad if op == "IMAD" else self.hold[PIPES.get(op, "alu")]

    def latency(self, a: _Node, b: _Node, raw: bool) -> float:
        """Cycles from ``a``'s issue until ``b`` may issue (``raw``: b reads a's result)."""
        if not raw or a.op in ("LDGSTS", "BRA", *FENCES):
            return 1.0
        if a.op == "HMMA":
            return self.hmma_acc if b.op == "HMMA" and set(a.dst) & set(b.dst) else self.hmma_result
        if a.op in VARIABLE:
            return self.var[a.op] + (self.hold["smem"] if a.op in ("LDSM", "LDS") else 0.0)
        same = PIPES.get(a.op, "alu") == PIPES.get(b.op, "alu")
        return FIXED_LATENCY + (0 if same else CROSS_PIPE)


def _edges(nodes: list[_Node]) -> list[list[tuple[int, bool]]]:
    """Predecessors of each node, (index, read-after-write): registers' true, anti and output
    dependences in source order; copies and ldmatrix kept between the fences around them."""
    preds: list[list[tuple[int, bool]]] = [[] for _ in nodes]
    writer: dict[int, int] = {}
    readers: dict[int, list[int]] = {}
    fence, since = -1, []
    for i, n in enumerate(nodes):
        for r in n.src:
            if r in writer:
                preds[i].append((writer[r], True))
            readers.setdefault(r, []).append(i)
        for r in n.dst + n.skips:
            preds[i] += [(k, False) for k in readers.get(r, ()) if k != i]
            if r in writer and r not in n.src:
                preds[i].append((writer[r], False))
            writer[r], readers[r] = i, []
        if n.op in ORDERED:
            if fence >= 0:
                preds[i].append((fence, False))
            if n.op in FENCES:
                preds[i] += [(k, False) for k in since]
                fence, since = i, []
            else:
                since.append(i)
    for i, n in enumerate(nodes):  # a region's branch waits for what its region reads
        if n.region:
            guard = next(k for k, g in enumerate(nodes) if g.opens == n.region)
            preds[guard] += [(k, raw) for k, raw in preds[i] if nodes[k].region != n.region]
    preds[-1] += [(k, False) for k in range(len(nodes) - 1)]  # the loop's branch: last
    return preds


def _heights(nodes, preds, t: _Timing) -> list[float]:
    """Each node's longest latency path to the step's end (the scheduler's priority); a
    region's branch takes its region's."""
    h = [t.pipe_hold(n.op) if n.op in PIPES else 1.0 for n in nodes]
    for i in range(len(nodes) - 1, -1, -1):
        for k, raw in preds[i]:
            h[k] = max(h[k], t.latency(nodes[k], nodes[i], raw) + h[i])
    for i, n in enumerate(nodes):
        if n.region:
            guard = next(k for k, g in enumerate(nodes) if g.opens == n.region)
            h[guard] = max(h[guard], h[i] + 1)
    return h


def _schedule(nodes, preds, t: _Timing) -> list[int]:
    """Critical-path-first list scheduling of the whole step, as ptxas moves code across
    barriers (only shared-memory and copy instructions are ordered by them) and around an
    ``if``: every cycle one instruction whose operands are ready and whose pipe is free, the
    one with the longest path to the step's end first; a guarded region is issued whole
    after its branch."""
    succs: list[list[int]] = [[] for _ in nodes]
    for i, ps in enumerate(preds):
        for k, _raw in ps:
            succs[k].append(i)
    height = _heights(nodes, preds, t)
    left = [len(ps) for ps in preds]
    issued = [0.0] * len(nodes)
    order: list[int] = []
    pipe_free: dict[str, float] = {}
    queues: dict[int, list] = {}
    now = 0.0
    region, todo = 0, {0: sum(n.region == 0 for n in nodes)}
    for i in range(len(nodes)):
        if left[i] == 0:
            heapq.heappush(queues.setdefault(nodes[i].region, []), (-height[i], i))
    while todo[0]:
        ready = queues.setdefault(region, [])
        best, waits, held = None, math.inf, []
        while ready:
            item = heapq.heappop(ready)
            n = nodes[item[1]]
            at = max([now] + [issued[k] + t.latency(nodes[k], n, raw) for k, raw in preds[item[1]]])
            if n.op not in ("BRA", "LDGSTS", *FENCES):
                at = max(at, pipe_free.get(PIPES.get(n.op, "alu"), 0.0))
            if at <= now:
                best = item[1]
                break
            waits = min(waits, at)
            held.append(item)
        for item in held:
            heapq.heappush(ready, item)
        if best is None:
            now = max(now + 1, math.ceil(waits))
            continue
        n = nodes[best]
        issued[best] = now
        if n.op not in ("BRA", "LDGSTS", *FENCES):
            pipe_free[PIPES.get(n.op, "alu")] = now + t.pipe_hold(n.op)
        order.append(best)
        now += 1
        todo[region] -= 1
        if n.opens:
            region = n.opens
            todo[region] = sum(m.region == region for m in nodes)
        elif region and not todo[region]:
            region = 0
        for k in succs[best]:
            left[k] -= 1
            if left[k] == 0:
                heapq.heappush(queues.setdefault(nodes[k].region, []), (-height[k], k))
    return order


def _control(nodes, preds, order: list[int], t: _Timing) -> list[list]:
    """Stall counts, scoreboards and waits for the scheduled order, as nvcc writes them:
    a fixed-latency reader is held back by the stalls between it and its producer (the
    warp's own issue, the pipes aside); a variable-latency result sets a scoreboard its
    readers wait on; HMMA results need neither (the tensor pipe's register interlock);
    a branch first drains every fixed-latency result in flight. Rows: [node, stall, wbar,
    wait] in issue order, a NOP row where a wait exceeds one control code's stall."""
    pos = {i: k for k, i in enumerate(order)}
    at = [0.0] * len(order)  # a lone warp's issue cycle, fixed-latency waits only
    for k, i in enumerate(order):
        at[k] = at[k - 1] + 1 if k else 0.0
        for p, raw in preds[i]:
            if raw and nodes[p].op not in ("HMMA", *VARIABLE) and p in pos and pos[p] < k:
                at[k] = max(at[k], at[pos[p]] + t.latency(nodes[p], nodes[i], raw))
    rows = []
    for k, i in enumerate(order):
        nxt = at[k + 1] if k + 1 < len(order) else at[k] + 1
        if nodes[i].op == "BRA":  # drain: HMMAs and fixed-latency results in flight
            begin = max(0, k - 64)  # nothing older is in flight
            drain = [at[q] + (t.hmma_acc if nodes[order[q]].op == "HMMA" else FIXED_LATENCY)
                     for q in range(begin, k) if nodes[order[q]].op not in VARIABLE]  # fmt: skip
            nxt = max([nxt, at[k] + BRANCH_STALL, *drain])
            if k + 1 < len(order):
                shift = nxt - at[k + 1]
                for q in range(k + 1, len(order)):
                    at[q] += max(0.0, shift)
        stall = max(1, math.ceil(nxt - at[k]))
        if stall > MAX_STALL:
            rows.append([None, stall - MAX_STALL, 7, 0])
            stall = MAX_STALL
        rows.append([i, stall, 7, 0])
    _scoreboards(nodes, preds, rows, [at[pos[r[0]]] if r[0] is not None else 0.0 for r in rows], t)
    return rows


def _scoreboards(nodes, preds, rows: list[list], at: list[float], t: _Timing) -> None:
    """Give each variable-latency producer the scoreboard that delays readers least (a
    reader waits for every producer on its scoreboard issued before it, as the hardware's
    counters do): the new producer's readers wait for the board's earlier producers, the
    board's pending readers for the new producer; times are the lone warp's issue cycles."""
    pos = {r[0]: k for k, r in enumerate(rows) if r[0] is not None}
    readers: dict[int, list[int]] = {}
    for i, ps in enumerate(preds):
        for p, raw in ps:
            if raw and nodes[p].op in VARIABLE:
                readers.setdefault(p, []).append(pos[i])
    done = [0.0] * SCOREBOARDS  # when each board's producers so far complete
    pending: list[list[int]] = [[] for _ in range(SCOREBOARDS)]  # rows of their readers
    board: dict[int, int] = {}
    for k, row in enumerate(rows):
        i = row[0]
        if i is None:
            continue
        for p, raw in preds[i]:
            if raw and p in board and pos[p] < k:
                row[3] |= 1 << board[p]
        if nodes[i].op in VARIABLE and readers.get(i):
            ready = at[k] + t.latency(nodes[i], nodes[i], True)
            mine = readers[i]

            def cost(b: int, ready=ready, mine=mine, k=k) -> float:
                late = sum(max(0.0, ready - at[r]) for r in pending[b] if r > k)
                return late + sum(max(0.0, done[b] - at[r]) for r in mine)

            b = min(range(SCOREBOARDS), key=cost)
            board[i], row[2] = b, b
            done[b] = max(done[b], ready)
            pending[b] = [r for r in pending[b] if r > k] + mine


def described_step(dtype: str, head_dim: int, block_m: int, block_n: int, warps: int,
                   stages: int, cycles: Mapping[str, float] | None = None,
                   smem_bytes_per_cycle: float = 128.0) -> DescribedStep:  # fmt: skip
    """One steady step (no mask, a prefetch issued) of one warp of flash2_tc.cu's K/V loop for
    these template arguments; ``cycles``: a profile's ``sass_core_cycles`` (default: the core
    model's reference profile, h200-sxm-core), which the scheduler and control codes use."""
    if dtype not in ("fp16", "bf16"):
        raise ValueError(f"flash2_tc.cu takes fp16 or bf16, not {dtype}")
    if cycles is None:
        from gpusim.profiles.loader import load_profile

        cycles = load_profile("h200-sxm-core").sass_core_cycles.value
    chunks = block_n * head_dim * 2 // COPY_BYTES  # of one tile
    # a thread copies ceil(chunks / threads): SASS predicates the guard, every warp issues it
    s = _Shape(head_dim, block_n, warps, stages, block_m // warps // 16,
               -(-chunks // (warps * WARP_THREADS)))  # fmt: skip
    nodes, t = _program(s).nodes, _Timing(cycles, smem_bytes_per_cycle)
    preds = _edges(nodes)
    order = _schedule(nodes, preds, t)
    rows = _control(nodes, preds, order, t)
    path = [Instr("NOP", st, 7, 7, 0) if i is None else
            Instr(nodes[i].op, st, wb, 7, wait, nodes[i].dst, nodes[i].src)
            for i, st, wb, wait in rows]  # fmt: skip
    at = {r[0]: k for k, r in enumerate(rows) if r[0] is not None}
    edges = tuple((at[p], at[i]) for i, ps in enumerate(preds) for p, _raw in ps)
    written, carried = set(), set()
    for n in nodes:
        carried |= set(n.src) - written
        written |= set(n.dst)
    return DescribedStep(path, frozenset(carried), edges)


def described_path(*args, **kwargs) -> list[Instr]:
    """The instructions of :func:`described_step` (same arguments), as the core model
    replays them."""
    return described_step(*args, **kwargs).path
