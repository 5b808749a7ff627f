"""The K/V-outer loop order with the running state in HBM, shared by flash1, flash2-kvq, naive-kvq.

The main kernel has one CTA per (batch, head). Its outer loop loads a K/V tile
into shared memory once; its inner loop walks the Q blocks that see that tile,
each step reading the Q tile and that block's running state (``m``, ``l`` and
the output accumulator ``Oacc``, fp32 in HBM), updating it with the online
softmax and writing it back. One CTA per (batch, head) because two CTAs that
own different K/V tiles would update the same rows' state concurrently: the
K/V loop must be serial for each (batch, head), as in FlashAttention-1.

With causal masking a Q block sees a prefix of the K/V tiles, so its first
visit is always K/V tile 0; unless the algorithm says otherwise, that visit
starts from ``(m, l, O) = (-inf, 0, 0)`` on chip instead of reading HBM.
"""

from __future__ import annotations

from algorithms.base import Kernel, OnChip
from algorithms.materialised import RowBlockKernel
from algorithms.recurrence import initial_state, normalised_update, scores, unnormalised_update
from algorithms.register_estimate import BASE_REGS, FP32, register_estimate
from algorithms.tile_machine import TileMachine
from algorithms.tiling import kv_tile_runs, visits_per_q_block


class KVOuterKernel(Kernel):
    """The main kernel: K/V tiles outer, Q blocks inner, state read and written in HBM."""

    #: FlashAttention-1's normalised output (True) or FlashAttention-2's unnormalised one.
    normalised: bool = True
    #: Read the state from HBM on the first visit too (the seeds' initialised buffers).
    reads_initial_state: bool = False
    #: Write the finished rows to ``O`` at a Q block's last visit (no separate final kernel).
    writes_output: bool = False

    def blocks_per_bh(self) -> int:
        return 1

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        w, s = self.workload, self.schedule
        br, bc, d = s.block_m, s.block_n, w.head_dim
        visits = visits_per_q_block(w, br, bc)
        update = normalised_update if self.normalised else unnormalised_update
        if self.writes_output:
            # Rows no K/V tile reaches see no key at all: their output is zero.
            for i in (i for i, n in enumerate(visits) if n == 0):
                tm.store("O", bh, i * br, tm.full(br, d, 0.0))
        for j in range(max(visits, default=0)):
            k0 = j * bc
            k = tm.load("K", self.tensor_bh("K", bh), k0, bc)
            v = tm.load("V", self.tensor_bh("V", bh), k0, bc)

            # Q blocks alike for this K/V tile (mask, last visit, ragged rows) differ only
            # by their rows: one compressed step each run when traced.
            for run in kv_tile_runs(w, visits, j, br, bc):
                for i in tm.repeat(run):
                    q0 = i * br
                    with tm.step():
                        q = tm.load("Q", bh, q0, br)
                        if j == 0 and not self.reads_initial_state:
                            m, den, o = initial_state(tm, br, d)
                        else:
                            m, den = tm.load("m", bh, q0, br), tm.load("l", bh, q0, br)
                            o = tm.load("Oacc", bh, q0, br)
                        m, den, o = update(tm, scores(tm, w, q, k, q0, k0, bc), v, m, den, o)
                        tm.store("m", bh, q0, m)
                        tm.store("l", bh, q0, den)
                        last = j == visits[i] - 1
                        tm.store("O" if last and self.writes_output else "Oacc", bh, q0, o)
            tm.barrier()  # the K/V buffer is refilled only after every warp is done with it

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        e, d, br = w.elem_bytes, w.head_dim, s.block_m
        bufs = {
            "K": s.block_n * d * e,
            "V": s.block_n * d * e,
            "Q": s.stages * br * d * e,
            "Oacc": s.stages * br * d * FP32,
            "m_l": s.stages * 2 * br * FP32,
        }
        if s.residency == "smem":
            bufs["S"] = br * s.block_n * FP32
        return OnChip(bufs, 32 * s.warps, register_estimate(w, s))


class InitStateKernel(RowBlockKernel):
    """Writes the initial state ``m = -inf``, ``l = 0``, ``Oacc = 0`` of every Q block."""

    def block_class(self, block: int):
        s = self.schedule
        return block * s.block_m + s.block_m > self.workload.seq_len_q

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        br = self.schedule.block_m
        m, den, o = initial_state(tm, br, self.workload.head_dim)
        for name, tile in (("m", m), ("l", den), ("Oacc", o)):
            tm.store(name, bh, block * br, tile)

    def on_chip(self) -> OnChip:
        return OnChip({}, self.threads(), BASE_REGS)


class FinalizeKernel(RowBlockKernel):
    """Writes ``O`` from the accumulator: divided by ``l`` (FA2 order) or copied (normalised)."""

    #: Divide by ``l`` (the accumulator is unnormalised).
    divides: bool = True

    def block_class(self, block: int):
        s = self.schedule
        return self.visits(block) > 0, block * s.block_m + s.block_m > self.workload.seq_len_q

    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        br, q0 = self.schedule.block_m, block * self.schedule.block_m
        if self.divides and self.visits(block) == 0:
            # The main kernel never reached these rows: no key is visible, the output is zero.
            tm.store("O", bh, q0, tm.full(br, self.workload.head_dim, 0.0))
            return
        o = tm.load("Oacc", bh, q0, br)
        if self.divides:
            o = tm.div_rows(o, tm.load("l", bh, q0, br))
        tm.store("O", bh, q0, o)

    def on_chip(self) -> OnChip:
        w, s = self.workload, self.schedule
        return OnChip({"Oacc": s.block_m * w.head_dim * FP32}, self.threads(), BASE_REGS)


class CopyKernel(FinalizeKernel):
    """The final copy of an already normalised accumulator to ``O`` (in the storage type)."""

    divides = False

    def block_class(self, block: int):
        return block * self.schedule.block_m + self.schedule.block_m > self.workload.seq_len_q
