"""How a CTA group's tiles meet the L2: which reads miss, which writes dirty, what that costs.

A mixin of :class:`~gpusim.engine.cta_group.CtaGroup` (the engine's hot path, kept apart
from the phases that use it). Tensors a CTA's own block indexes (Q, O, LSE) are looked up
per run of consecutive CTAs, one entry per run named after its first tile and its length;
shared tiles (K, V) once per batch-head of the group (per K/V head for a GQA group's
heads), which is how a tile that the first CTA fetches from DRAM becomes an L2 hit for the
others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from algorithms.base import KV_TENSORS
from gpusim.engine.plan_types import Chunk

if TYPE_CHECKING:
    from gpusim.engine.kernel_run import KernelRun
    from gpusim.engine.plan import ClassPlan


class Lookup:
    """What a chunk's reads cost this group: DRAM bytes per CTA and for the shared misses."""

    __slots__ = ("fetches", "latency", "own_dram", "shared_dram")

    def __init__(self, own_dram: float, shared_dram: float, fetches: int, latency: float):
        self.own_dram = own_dram  # per CTA: its own tiles that missed
        self.shared_dram = shared_dram  # shared tiles that missed: fetched once for the group
        self.fetches = fetches  # how many shared tiles those are (one per batch-head and tile)
        self.latency = latency  # ticks until a CTA's tiles have all arrived, group average


class L2Meeting:
    """The L2 lookups of a CTA group (its ``run``, ``plan``, ``members``, ``dram`` and
    ``bh_runs()`` are :class:`~gpusim.engine.cta_group.CtaGroup`'s)."""

    __slots__ = ()
    run: KernelRun
    plan: ClassPlan
    dram: list[int]
    _bh_runs: list[tuple[int, int, int, int]] | None
    members: int

    def _own_key(self, c: int, j: int, writes: bool, run: tuple[int, int, int, int]):
        """``(L2 key, bytes per CTA)`` of own tile ``j`` of chunk ``c`` for the CTAs of
        ``run`` (``bh``, first block, count, class), named after the first: from their own
        class's program (a timing class may hold classes whose tiles sit elsewhere)."""
        bh, block0, count, cls = run
        plan = self.run.plans[cls]
        chunk = plan.chunks[c]
        ref = (chunk.writes if writes else chunk.reads)[j]
        row0 = ref.row0 + (block0 - plan.rep_block) * ref.own_rows
        return (ref.tensor, bh * ref.bh_scale + ref.bh_off, row0, ref.col0, count), ref.nbytes

    def _shared_tiles(self, c: int, j: int, writes: bool) -> dict[tuple, tuple[int, list[int]]]:
        """The L2 keys of shared tile ``j`` of chunk ``c`` (read, or written) for the group's
        CTAs: each with its bytes and the runs of :meth:`bh_runs` whose CTAs move it.

        Shared tiles (K, V) are the same for every CTA of a batch-head in a class; a timing
        class may hold classes that read other shared tiles of the same shapes (the slices
        of split-KV decoding), so in a mixed grid each class names its own. A GQA group's
        heads read one K/V head's tiles: one key for all of them."""
        plans, runs = self.run.plans, self.bh_runs()
        out: dict[tuple, tuple[int, list[int]]] = {}
        for i, (bh, _b, _n, cls) in enumerate(runs):
            chunk = plans[cls].chunks[c]
            ref = (chunk.writes if writes else chunk.reads)[j]
            group = self.run.kv_group if ref.tensor in KV_TENSORS else 1
            key = (ref.tensor, bh // group * ref.bh_scale + ref.bh_off, ref.row0, ref.col0)
            if key not in out:
                out[key] = (ref.nbytes, [])
            out[key][1].append(i)
        return out

    def _lookup_reads(self, c: int) -> Lookup:
        """Meet chunk ``c``'s reads with the L2; count them; what they cost this group."""
        runs = self._bh_runs if self._bh_runs is not None else self.bh_runs()
        if len(runs) == 1 and not self.run.grid.mixed:
            return self._lookup_reads_one(self.plan.chunks[c], runs[0])
        return self._lookup_reads_runs(c)

    def _lookup_reads_runs(self, c: int) -> Lookup:
        """:meth:`_lookup_reads` for any group: its CTAs' runs one by one."""
        run = self.run
        sim, plans = run.sim, run.plans
        l2, counters, now = sim.l2, run.counters, sim.env._now
        fill = run.fill_ticks
        chunk = self.plan.chunks[c]
        runs = self._bh_runs if self._bh_runs is not None else self.bh_runs()
        mixed = run.grid.mixed
        own_miss = shared_miss = fetches = 0
        own_ready = [now] * len(runs)
        shared_ready = [now] * len(runs)
        for j, ref in enumerate(chunk.reads):
            own_rows = ref.own_rows
            if own_rows and not mixed:
                # ``_own_key``, inlined (once per run and tile: a hot path); unmixed, every
                # run is of the group's class, whose tile is ``ref``.
                tensor, col0, nbytes = ref.tensor, ref.col0, ref.nbytes
                row_at = ref.row0 - self.plan.rep_block * own_rows
                scale, off = ref.bh_scale, ref.bh_off  # engine/head_keys.py
                for i, (bh, b0, n, _cls) in enumerate(runs):
                    miss, r = l2.read((tensor, bh * scale + off, row_at + b0 * own_rows, col0, n),
                                      nbytes * n, now, fill)  # fmt: skip
                    own_miss += miss
                    if r > own_ready[i]:
                        own_ready[i] = r
            elif own_rows:
                for i, one in enumerate(runs):
                    key, nbytes = self._own_key(c, j, False, one)
                    miss, r = l2.read(key, nbytes * one[2], now, fill)
                    own_miss += miss
                    if r > own_ready[i]:
                        own_ready[i] = r
            else:
                for key, (nbytes, readers) in self._shared_tiles(c, j, writes=False).items():
                    miss, r = l2.read(key, nbytes, now, fill)
                    shared_miss += miss
                    fetches += miss > 0
                    for i in readers:
                        shared_ready[i] = max(shared_ready[i], r)
        m = self.members
        if mixed:
            counters.global_read_bytes += sum(
                n * plans[cls].chunks[c].read_bytes for _bh, _b, n, cls in runs
            )
        else:
            counters.global_read_bytes += m * chunk.read_bytes
        counters.dram_read_bytes += own_miss + shared_miss
        self.dram[0] += own_miss + shared_miss
        # Each CTA waits for its own tiles and its batch-head's shared ones; the group, which
        # moves as one, waits for the average CTA.
        floor = sim.rates.l2_latency_ticks
        wait = sum(
            n * max(floor, max(own_ready[i], shared_ready[i]) - now)
            for i, (_bh, _b, n, _c) in enumerate(runs)
        )
        return Lookup(own_miss / m, float(shared_miss), fetches, wait / m)

    def _lookup_reads_one(self, chunk: Chunk, one: tuple[int, int, int, int]) -> Lookup:
        """:meth:`_lookup_reads` for a group of one run of CTAs of its own class (every group
        of the detailed path): the same reads of the L2 in the same order, the same sums."""
        run = self.run
        sim = run.sim
        l2, counters, now = sim.l2, run.counters, sim.env._now
        fill = run.fill_ticks
        bh, b0, n, _cls = one
        rep_block = self.plan.rep_block
        kv_group = run.kv_group
        own_miss = shared_miss = fetches = 0
        own_ready = shared_ready = now
        for ref in chunk.reads:
            own_rows = ref.own_rows
            if own_rows:
                row_at = ref.row0 - rep_block * own_rows
                key_bh = bh * ref.bh_scale + ref.bh_off  # engine/head_keys.py
                miss, r = l2.read((ref.tensor, key_bh, row_at + b0 * own_rows, ref.col0, n),
                                  ref.nbytes * n, now, fill)  # fmt: skip
                own_miss += miss
                if r > own_ready:
                    own_ready = r
            else:
                tensor = ref.tensor
                group = kv_group if tensor in KV_TENSORS else 1
                key_bh = bh // group * ref.bh_scale + ref.bh_off
                miss, r = l2.read((tensor, key_bh, ref.row0, ref.col0), ref.nbytes, now, fill)
                shared_miss += miss
                fetches += miss > 0
                if r > shared_ready:
                    shared_ready = r
        m = self.members
        counters.global_read_bytes += m * chunk.read_bytes
        counters.dram_read_bytes += own_miss + shared_miss
        self.dram[0] += own_miss + shared_miss
        floor = sim.rates.l2_latency_ticks
        wait = n * max(floor, max(own_ready, shared_ready) - now)
        return Lookup(own_miss / m, float(shared_miss), fetches, wait / m)

    def _lookup_writes(self, c: int) -> tuple[float, float, int]:
        """Meet chunk ``c``'s writes with the L2: DRAM bytes per CTA, for shared tiles, and
        how many shared tiles those are."""
        sim, plans = self.run.sim, self.run.plans
        l2, counters, now = sim.l2, self.run.counters, sim.env.now
        chunk = self.plan.chunks[c]
        own_dirty = shared_dirty = fetches = 0
        for j, ref in enumerate(chunk.writes):
            if ref.own_rows:
                for run in self.bh_runs():
                    key, nbytes = self._own_key(c, j, True, run)
                    own_dirty += l2.write(key, nbytes * run[2], now)
            else:
                for key, (nbytes, _writers) in self._shared_tiles(c, j, writes=True).items():
                    dirty = l2.write(key, nbytes, now)
                    shared_dirty += dirty
                    fetches += dirty > 0
        m = self.members
        if self.run.grid.mixed:
            counters.global_write_bytes += sum(
                n * plans[cls].chunks[c].write_bytes for _bh, _b, n, cls in self.bh_runs()
            )
        else:
            counters.global_write_bytes += m * chunk.write_bytes
        counters.dram_write_bytes += own_dirty + shared_dirty
        self.dram[1] += own_dirty + shared_dirty
        return own_dirty / m, float(shared_dirty), fetches
