"""A step's dependence graph, list scheduler and control codes, as ptxas and nvcc make them.

Given one step's instructions in source order (:class:`Node`: registers written and read,
the guarded region each lies in), :func:`dependences` finds their register and fence
dependences, :func:`schedule` orders them critical-path first, as a compiler moves code
across barriers and around an ``if``, and :func:`control_codes` writes the stall counts,
scoreboards and waits nvcc would. :mod:`gpusim.kernel_catalog.described_loop` writes the
instructions.

Latencies and pipe cycles are the profile's ``sass_core_cycles`` (the ones the core model
replays with). Fixed-latency results (ALU, FMA pipe) take :data:`FIXED_LATENCY` cycles.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from dataclasses import dataclass

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
class Node:
    """One instruction of a step in source order: the registers it writes and reads, its
    guarded region; a branch's skipped writes or the region it opens."""

    op: str
    dst: tuple[int, ...]
    src: tuple[int, ...]
    region: int  # 0: the loop body; k: the k-th guarded region (its branch opens it)
    skips: tuple[int, ...] = ()  # registers a region the branch jumps over may write
    opens: int = 0  # the region this branch guards (0: none)


class Timing:
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

    def latency(self, a: Node, b: Node, raw: bool) -> float:
        """Cycles from ``a``'s issue until ``b`` may issue (``raw``: b reads a's result)."""
        if not raw or a.op in ("LDGSTS", "BRA", *FENCES):
            return 1.0
        if a.op == "HMMA":
            return self.hmma_acc if b.op == "HMMA" and set(a.dst) & set(b.dst) else self.hmma_result
        if a.op in VARIABLE:
            return self.var[a.op] + (self.hold["smem"] if a.op in ("LDSM", "LDS") else 0.0)
        same = PIPES.get(a.op, "alu") == PIPES.get(b.op, "alu")
        return FIXED_LATENCY + (0 if same else CROSS_PIPE)


def dependences(nodes: list[Node]) -> list[list[tuple[int, bool]]]:
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


def _heights(nodes, preds, t: Timing) -> list[float]:
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


def schedule(nodes, preds, t: Timing) -> list[int]:
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


def control_codes(nodes, preds, order: list[int], t: Timing) -> list[list]:
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


def _scoreboards(nodes, preds, rows: list[list], at: list[float], t: Timing) -> None:
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
