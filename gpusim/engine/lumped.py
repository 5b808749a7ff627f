"""Lumped CTA groups: CTAs of different lengths dispatched together run as one (causal grids).

Why. In a causal grid every Q block visits its own number of K/V tiles, so no two CTAs of
a batch-head run the same program: the CTA groups of :mod:`gpusim.engine.cta_group` fall
apart to single CTAs, and a million-token grid is hundreds of thousands of them. Yet the
CTAs dispatched together are alike but for their length: ``n`` unmasked K/V steps, each
the same step at other rows, and the same diagonal band.

What. On the aggregated path, a kernel with many timing classes gives every block one
timing class (``Grid(mixed)``), so all the CTAs one dispatch hands to a run of alike SMs
form one group, whatever their lengths. The group moves in lockstep at the pace of their
mean: it runs the plan of the member whose compute time is nearest to the members' mean,
its SM work scaled to the mean (``work_scale``) and its SM-to-L2 bytes per CTA to the
members' mean, and all its SMs free together. The waves of the grid stay waves, as in a
grid without the mask.

Why the mean. Launched last block first, the CTAs of a wave that start together have
lengths falling by the same step from one to the next; the SM that runs the shortest of
them takes the longest CTA of the next wave, so every SM's two CTAs add up to twice the
mean, and the waves two by two end together in the detailed simulation too. Across the
end of a batch-head (short CTAs beside long ones) the dispatcher rebalances the SMs
within a few CTAs; lumped, the wave takes the mean. The tests hold the two within 1 %
(tests/engine/test_lumped.py); docs/limits.md lists what was measured.

What stays exact. Work counters (CTAs, FLOPs, FP32 and exp ops, shared-memory bytes,
barriers) and SM-to-L2 bytes are each member's own (from its class's totals, counted when
the group starts). Each member's own tiles (Q, O, the rows of S and P) meet the L2 under
their own keys, scaled to the member's bytes. Shared tiles (K, V) are looked up once per
batch-head (K/V head, with GQA) in the group: the walk of the member that reads the most
of them (every other member's K/V tiles are a part of it: causal prefixes), chunk by
chunk under the keys its CTA would use on its own, in its own order (forward or
backward), spread over the representative's chunks in proportion to their bytes; so the
DRAM bytes are those of each batch-head's union of tiles, read in the order of the
longest walk.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

from algorithms.base import KV_TENSORS
from gpusim.engine.cta_group import CtaGroup
from gpusim.engine.cta_l2 import Lookup

if TYPE_CHECKING:
    from gpusim.engine.kernel_run import KernelRun
    from gpusim.engine.plan import ClassPlan
    from gpusim.engine.sm_group import SmGroup


class LumpedGroup(CtaGroup):
    """CTAs of several classes moving as one at their mean pace (see the module docstring)."""

    __slots__ = ("_key_ready", "_lead_walks", "_mean", "_read_scale", "_scatter", "_write_scale")

    def __init__(
        self, run: KernelRun, plan: ClassPlan, smg: SmGroup, layers: list[int], starts: list[int]
    ):
        self._mean = 1.0
        self._scatter = 1.0
        #: (tensor, owner) -> tick each key of the longest walk is in the L2
        self._key_ready: dict[tuple[str, int], list[int]] = {}
        self._lead_walks: dict[str, dict] = {}
        super().__init__(run, plan, smg, layers, starts)
        plans = run.plans
        members = self.bh_runs()
        m = self.members
        mean = sum(n * plans[cls].compute_ticks for _bh, _b, n, cls in members) / m
        rep = min(
            {cls for _bh, _b, _n, cls in members},
            key=lambda c: (abs(plans[c].compute_ticks - mean), c),
        )
        self.plan = plans[rep]
        self._mean = mean / self.plan.compute_ticks if self.plan.compute_ticks > 0 else 1.0
        reads = sum(n * plans[cls].totals["read_bytes"] for _bh, _b, n, cls in members) / m
        writes = sum(n * plans[cls].totals["write_bytes"] for _bh, _b, n, cls in members) / m
        t = self.plan.totals
        self._read_scale = reads / t["read_bytes"] if t["read_bytes"] else 1.0
        self._write_scale = writes / t["write_bytes"] if t["write_bytes"] else 1.0

    @property
    def work_scale(self) -> float:
        """SM work over the representative's: the members' mean, times the CTA scatter."""
        return self._scatter * self._mean

    @work_scale.setter
    def work_scale(self, value: float) -> None:
        self._scatter = value

    def begin(self) -> None:
        """Count every member's SM-to-L2 bytes (exact), then start the first phase."""
        c, plans = self.run.counters, self.run.plans
        for _bh, _b, n, cls in self.bh_runs():
            c.global_read_bytes += n * plans[cls].totals["read_bytes"]
            c.global_write_bytes += n * plans[cls].totals["write_bytes"]
        super().begin()

    def _bytes_per_cta(self, c: int, reads: bool) -> float:
        chunk = self.plan.chunks[c]
        if reads:
            return chunk.read_bytes * self._read_scale
        return chunk.write_bytes * self._write_scale

    def _split_extra(self, other: LumpedGroup) -> None:
        other._mean, other._scatter = self._mean, self._scatter
        other._read_scale, other._write_scale = self._read_scale, self._write_scale
        # The split-off CTAs find their own longest walks (waits of earlier lookups lost).
        other._key_ready, other._lead_walks = {}, {}

    # --- L2 ---------------------------------------------------------------------------
    def _rep_own_key(self, ref, bh: int, block0: int, count: int) -> tuple:
        """The L2 key of own tile ``ref`` (of the representative's chunk) for ``count`` CTAs
        from ``block0`` of ``bh``: own rows follow the block, whatever the member's class."""
        row0 = ref.row0 + (block0 - self.plan.rep_block) * ref.own_rows
        return (ref.tensor, bh * ref.bh_scale + ref.bh_off, row0, ref.col0, count)

    def _own_bytes(self, cls: int, tensor: str, nbytes: int, reads: bool) -> int:
        """A member's bytes of an own tile the representative moves ``nbytes`` of."""
        run = self.run
        mine = _tensor_bytes(run, run.plans[cls]).get(tensor, (0, 0))[0 if reads else 1]
        rep = _tensor_bytes(run, self.plan).get(tensor, (0, 0))[0 if reads else 1]
        return round(nbytes * mine / rep) if rep else nbytes

    def _lookup_reads(self, c: int) -> Lookup:
        sim, run = self.run.sim, self.run
        l2, now = sim.l2, sim.env.now
        fill = run.fill_ticks
        chunk = self.plan.chunks[c]
        runs = self.bh_runs()
        own_miss = shared_miss = fetches = 0
        own_ready = [now] * len(runs)
        seen: set[str] = set()
        for ref in chunk.reads:
            if ref.own_rows:
                for i, (bh, b0, n, cls) in enumerate(runs):
                    nbytes = self._own_bytes(cls, ref.tensor, ref.nbytes, reads=True)
                    miss, r = l2.read(self._rep_own_key(ref, bh, b0, n), nbytes * n, now, fill)
                    own_miss += miss
                    own_ready[i] = max(own_ready[i], r)
                continue
            if ref.tensor in seen:
                continue
            seen.add(ref.tensor)
            lo, hi = _share(run, self.plan, ref.tensor, c)
            kv = ref.tensor in KV_TENSORS
            walks = self._walks(ref.tensor)
            for owner, (keys, starts, _size) in walks.items():
                ready = self._key_ready.setdefault((ref.tensor, owner), [now] * len(keys))
                first, last = bisect_left(starts, lo), bisect_left(starts, hi)
                for i in range(first, last):
                    key, nbytes = keys[i]
                    miss, ready[i] = l2.read((key[0], owner, key[1], key[2]), nbytes, now, fill)
                    shared_miss += miss
                    fetches += miss > 0
            # A member waits for the tiles it reads in this chunk: the same share of its
            # own (shorter) walk, which the longest member's lookups have fetched by now.
            for i, (bh, _b, _n, cls) in enumerate(runs):
                owner = bh // run.kv_group if kv else bh
                keys, starts, lead_bytes = walks[owner]
                mine = _tensor_bytes(run, run.plans[cls]).get(ref.tensor, (0, 0))[0]
                f = mine / lead_bytes if lead_bytes else 1.0
                ready = self._key_ready[(ref.tensor, owner)]
                first, last = bisect_left(starts, lo * f), bisect_left(starts, hi * f)
                if last > first:
                    own_ready[i] = max(own_ready[i], max(ready[first:last]))
        run.counters.dram_read_bytes += own_miss + shared_miss
        self.dram[0] += own_miss + shared_miss
        m = self.members
        floor = sim.rates.l2_latency_ticks
        wait = sum(n * max(floor, own_ready[i] - now) for i, (_bh, _b, n, _c) in enumerate(runs))
        return Lookup(own_miss / m, float(shared_miss), fetches, wait / m)

    def _walks(self, tensor: str) -> dict[int, tuple[list, list[float], int]]:
        """For each batch-head (K/V head for K and V) of the group: the longest member's
        walk of ``tensor`` as L2 keys, where each key starts as a share of its bytes, and
        its bytes."""
        got = self._lead_walks.get(tensor)
        if got is not None:
            return got
        run = self.run
        plans = run.plans
        lead: dict[int, tuple[int, int]] = {}
        for bh, _b, _n, cls in self.bh_runs():
            owner = bh // run.kv_group if tensor in KV_TENSORS else bh
            size = _tensor_bytes(run, plans[cls]).get(tensor, (0, 0))[0]
            best = lead.get(owner)
            if best is None or size > best[0]:
                lead[owner] = (size, cls)
        got = self._lead_walks[tensor] = {
            owner: (*_walk(run, plans[cls], tensor), size) for owner, (size, cls) in lead.items()
        }
        return got

    def _lookup_writes(self, c: int) -> tuple[float, float, int]:
        sim = self.run.sim
        l2, now = sim.l2, sim.env.now
        chunk = self.plan.chunks[c]
        own_dirty = shared_dirty = fetches = 0
        for ref in chunk.writes:
            if ref.own_rows:
                for bh, b0, n, cls in self.bh_runs():
                    nbytes = self._own_bytes(cls, ref.tensor, ref.nbytes, reads=False)
                    own_dirty += l2.write(self._rep_own_key(ref, bh, b0, n), nbytes * n, now)
            else:
                # No lumped kernel writes shared tiles; were one to, each batch-head writes
                # the representative's tile once.
                for bh in self.bh_counts():
                    dirty = l2.write((ref.tensor, bh, ref.row0, ref.col0), ref.nbytes, now)
                    shared_dirty += dirty
                    fetches += dirty > 0
        self.run.counters.dram_write_bytes += own_dirty + shared_dirty
        self.dram[1] += own_dirty + shared_dirty
        return own_dirty / self.members, float(shared_dirty), fetches


def _tensor_bytes(run: KernelRun, plan: ClassPlan) -> dict[str, tuple[int, int]]:
    """``{tensor: (read bytes, write bytes)}`` of one CTA of the plan."""
    key = ("bytes", plan.index)
    got = run.lumped_cache.get(key)
    if got is None:
        got = run.lumped_cache[key] = {
            t: (r, w) for t, (r, w) in plan.program.bytes_by_tensor().items()
        }
    return got


def _share(run: KernelRun, plan: ClassPlan, tensor: str, c: int) -> tuple[float, float]:
    """The share of the plan's reads of ``tensor`` before chunk ``c``, and through it."""
    key = ("shares", plan.index, tensor)
    ends = run.lumped_cache.get(key)
    if ends is None:
        sizes = [sum(r.nbytes for r in ch.reads if r.tensor == tensor) for ch in plan.chunks]
        total = sum(sizes) or 1
        ends, acc = [], 0
        for n in sizes:
            acc += n
            ends.append(acc / total)
        ends[-1] = 1.0 + 1e-9  # the last chunk takes every key left
        run.lumped_cache[key] = ends
    return (ends[c - 1] if c else 0.0), ends[c]


def _walk(run: KernelRun, plan: ClassPlan, tensor: str) -> tuple[list, list[float]]:
    """A class's walk of a shared ``tensor``: its chunks' tiles (the keys its CTAs would
    look up on their own), in order, with each one's start as a share of their bytes."""
    key = ("walk", plan.index, tensor)
    got = run.lumped_cache.get(key)
    if got is None:
        keys = [
            ((r.tensor, r.row0, r.col0), r.nbytes)
            for ch in plan.chunks
            for r in ch.reads
            if r.tensor == tensor and not r.own_rows
        ]
        total = sum(n for _k, n in keys) or 1
        starts, acc = [], 0
        for _k, n in keys:
            starts.append(acc / total)
            acc += n
        got = run.lumped_cache[key] = (keys, starts)
    return got
