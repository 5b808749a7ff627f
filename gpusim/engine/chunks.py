"""How a CTA's steps are cut into chunks: runs of steps of one kind, ``k`` steps a chunk,
aligned to the walk so that every CTA's chunks cover the same tiles, each tensor's accesses
of a chunk merged into one tile reference (the L2's key).
"""

from __future__ import annotations

from math import ceil

from algorithms.program import CtaProgram, Step
from gpusim.engine.plan_types import TileRef

#: Chunks per run of steps in the aggregated path (a 2048-step loop becomes 16 chunks).
CHUNKS_PER_RUN = 16
#: A CTA's chunks in the aggregated path stay below this when runs allow (flash1 has many runs).
MAX_CHUNKS_PER_CTA = 64


#: A chunk's steps: ``(step, count, first repetition)`` pieces, ``count`` repetitions of a
#: (compressed) step from ``first`` on; a step of its own is ``(step, 1, 0)``.
Piece = tuple[Step, int, int]


def runs(steps: list[Step]) -> list[list[Step]]:
    out: list[list[Step]] = []
    for s in steps:
        if out and out[-1][0].pipelined == s.pipelined:
            out[-1].append(s)
        else:
            out.append([s])
    return out


def run_length(run: list[Step]) -> int:
    return sum(s.repeat for s in run)


def lead(run: list[Step], k: int) -> int:
    """Steps in ``run``'s first chunk: ``k``, or fewer where the run's walk starts off a
    multiple of ``k`` tiles, so that every later chunk starts on one.

    A CTA that walks its K/V blocks backward from its diagonal starts at a block that
    differs from CTA to CTA; cut from its first step, its chunks would cover other runs of
    tiles than the next CTA's, and no chunk of one would be the other's L2 key. Aligned to
    the walk's absolute position (the first strided read's tile index, counted back over the
    steps before it), the chunks of all CTAs cover the same tiles, as forward walks from
    block 0 always did.
    """
    before = 0
    for i, s in enumerate(run):
        nxt = run[i + 1].reads if i + 1 < len(run) else []
        for a in s.reads:
            dr, dc = s.stride_of(a.tensor)
            if s.repeat == 1:
                # an expanded walk: the stride is the next step's move of the same tensor
                b = next((b for b in nxt if b.tensor == a.tensor), None)
                dr, dc = (b.row0 - a.row0, b.col0 - a.col0) if b is not None else (0, 0)
            if dr == 0 and dc == 0:
                continue
            pos = a.row0 // abs(dr) if dr else a.col0 // abs(dc)
            forward = (dr or dc) > 0
            start = pos - before if forward else pos + before
            if start < 0:
                return k
            return k - start % k if forward else start % k + 1
        before += s.repeat
    return k


def slices(run: list[Step], k: int, lead: int | None = None) -> list[list[Piece]]:
    """``run`` cut into chunks of ``k`` steps (the first ``lead`` steps, the last one
    shorter), compressed steps split between chunks where a chunk boundary falls inside
    them."""
    chunks: list[list[Piece]] = [[]]
    room = k if lead is None else lead
    for s in run:
        done = 0
        while done < s.repeat:
            if room == 0:
                chunks.append([])
                room = k
            take = min(room, s.repeat - done)
            chunks[-1].append((s, take, done))
            done += take
            room -= take
    return chunks


def chunk_size(
    programs: list[CtaProgram], detailed: bool, chunks_per_run: int = CHUNKS_PER_RUN
) -> int:
    """Steps per chunk for a kernel whose classes have ``programs`` (1 when ``detailed``)."""
    if detailed:
        return 1
    per_program = [[run_length(r) for r in runs(p.steps)] for p in programs]
    longest = max((n for rs in per_program for n in rs), default=1)
    k = max(1, ceil(longest / chunks_per_run))

    def most_chunks(k: int) -> int:
        return max(sum(ceil(n / k) for n in rs) for rs in per_program)

    while k < longest and most_chunks(k) > MAX_CHUNKS_PER_CTA:
        k *= 2
    return k


def merge(
    pieces: list[Piece], reads: bool, own_rows: dict[str, int], bh_scale: dict[str, int]
) -> tuple[TileRef, ...]:
    """Each tensor's accesses of a chunk as one tile, named after its lowest row and column
    (its first in order on a forward walk, its last on a backward one: the same name for the
    same tiles whichever way a CTA walks them); a tensor of ``bh_scale`` (several of its
    batch-heads read by one CTA) one tile per batch-head."""
    merged: dict[tuple[str, int], list] = {}
    for s, count, first in pieces:
        for a in s.reads if reads else s.writes:
            dr, dc = s.stride_of(a.tensor) if count > 1 or first else (0, 0)
            last = first + count - 1
            r0 = a.row0 + min(first * dr, last * dr)
            c0 = a.col0 + min(first * dc, last * dc)
            key = (a.tensor, a.bh if a.tensor in bh_scale else 0)
            m = merged.get(key)
            if m is None:
                merged[key] = [r0, c0, count * a.nbytes]
            else:
                m[0], m[1] = min(m[0], r0), min(m[1], c0)
                m[2] += count * a.nbytes
    return tuple(
        TileRef(t, r0, c0, n, own_rows.get(t, 0), bh_scale.get(t, 1), off)
        for (t, off), (r0, c0, n) in merged.items()
        if n > 0
    )
