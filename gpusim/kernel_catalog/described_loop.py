"""One steady step of flash2_tc.cu's K/V loop, written from the tile description (a prototype).

The SM core model (:mod:`gpusim.engine.core_model`) replays the compiled loops' SASS; an
instance that was never compiled has none. This writes the step a warp of the project's
mma.sync kernel (``gpusim/kernels/flash2_tc.cu``) executes from its template arguments only,
never reading a compiled loop: the instructions of the kernel's source (the counts of
:mod:`gpusim.instruction_mix`), their register dependences, the basic blocks its branches
make, ordered by a list scheduler as a compiler's would be, with control codes written the
way nvcc writes them (both in :mod:`gpusim.kernel_catalog.list_schedule`). What it leaves out
is listed in reports/described_loop_look/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpusim.instruction_mix import COPY_BYTES, WARP_THREADS
from gpusim.kernel_catalog.list_schedule import Node, Timing, control_codes, dependences, schedule
from gpusim.kernel_catalog.sass_instr import Instr


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
        self.nodes: list[Node] = []
        self.region = 0
        self.regions = 0
        self._next_reg = 0

    def regs(self, n: int) -> tuple[int, ...]:
        first, self._next_reg = self._next_reg, self._next_reg + n
        return tuple(range(first, first + n))

    def emit(self, op: str, src: tuple[int, ...] = (), dst: int | tuple[int, ...] = 1):
        """Append ``op`` reading ``src``; ``dst``: registers it writes, or how many fresh ones."""
        out = self.regs(dst) if isinstance(dst, int) else dst
        self.nodes.append(Node(op, out, tuple(src), self.region))
        return out

    def guard(self, src: tuple[int, ...]) -> None:
        """``if (...) {``, taken in a steady step: what follows up to :meth:`end` stays
        between its branch and the join; the rest of the loop moves freely around it."""
        self.regions += 1
        self.nodes.append(Node("BRA", (), tuple(src), 0, opens=self.regions))
        self.region = self.regions

    def end(self) -> None:
        self.region = 0

    def skip(self, src: tuple[int, ...], writes: tuple[int, ...] = ()) -> None:
        """A branch over code a steady step does not run (the mask, Q's first load), which
        may write ``writes``: their readers stay after it, their writers before."""
        self.nodes.append(Node("BRA", (), tuple(src), 0, skips=tuple(writes)))


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
    nodes, t = _program(s).nodes, Timing(cycles, smem_bytes_per_cycle)
    preds = dependences(nodes)
    order = schedule(nodes, preds, t)
    rows = control_codes(nodes, preds, order, t)
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
