"""The tracing interpreter: records each CTA's tile program without computing.

Tiles are shapes. Every operation charges its pipe (tensor core, FP32, SFU),
its shared-memory traffic (which depends on the schedule's warp split and on
where S/P and O live) and its barriers, into the current :class:`Step`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from algorithms.base import ATOMIC_TENSORS, Kernel
from algorithms.program import Access, CtaClass, CtaProgram, Step
from algorithms.tile_machine import TileMachine
from gpusim.instruction_mix import StepShape, cta_bwd_step_issue, cta_mask_issue, cta_step_issue
from gpusim.kernel_class import resolve_class

VECTOR_TENSORS = ("m", "l", "LSE", "Dsum")
#: running state in HBM, split-KV decoding's partials and the backward's row sums and dQ
#: accumulator, always fp32
FP32_STATE_TENSORS = ("m", "l", "Oacc", "Opart", "LSE", "Dsum", "dQacc")
#: tensors with a row per query (the rest have a row per key)
QUERY_ROW_TENSORS = ("Q", "O", "S", "P", "dP", "dS", "dO", "dQ", *FP32_STATE_TENSORS)
#: tensors with a column per key (the rest have the head dim's)
KEY_COLUMN_TENSORS = ("S", "P", "dP", "dS")
FP32_BYTES = 4

# Warp-instructions besides the matrix products (softmax, copies, addresses, loop control):
# the kernel description's counts (gpusim.instruction_mix: formulas of the tile shapes and
# the class, or the fit to the project's compiled loops), charged to the softmax between the
# two products of a flash kernel's step; the mask's only on tiles that call tm.mask.
WARP_THREADS = 32
#: Q fragment bytes per thread a tensor-core kernel keeps in registers (32 registers).
Q_REGISTER_BYTES = 32 * 4


@dataclass(frozen=True, slots=True)
class Shape:
    """A traced tile: its shape and whether it sits in shared memory."""

    rows: int
    cols: int | None  # None: a row vector
    in_smem: bool
    step: int = -1  # index of the step that loaded it (-1: computed, not loaded)

    @property
    def elems(self) -> int:
        return self.rows * (self.cols or 1)


class TracingMachine(TileMachine):
    """Records the tile program of one CTA into ``self.steps``."""

    def __init__(self, kernel: Kernel):
        self.k = kernel
        self.w = kernel.workload
        self.s = kernel.schedule
        self.esize = self.w.elem_bytes
        self.smem_results = self.s.residency == "smem"
        self.split_k = self.s.warp_split == "split-k"
        self.kernel_class = resolve_class(self.s, self.w.dtype)
        self.steps: list[Step] = [Step(pipelined=False)]
        self.bh = 0
        self._a_in_regs: set[int] = set()  # steps whose loaded A operand sits in registers
        #: the tile the last load or elementwise op produced: its values are still in the
        #: threads' registers, so a row reduction of it, or a global store of it, needs no
        #: second pass over shared memory (a kernel computes the max on the way in, the sum
        #: on the way through, and stores the normalised values straight from registers)
        self._fresh: Shape | None = None
        self._fresh_step = -1  # the step that produced it (a later step cannot fuse with it)
        #: compressed loops (``repeat``): step index of the loop's head -> the indices of the
        #: traced iterations it stands for, dropped from the program
        self._folds: dict[int, list[int]] = {}
        #: products in a 2-D warp grid (the backward): tiles computed on chip this step that
        #: were written to shared memory as an operand (kept alive so their ids stay theirs)
        self.grid = kernel.products_in_warp_grid()
        self._staged: list[Shape] = []
        self._staged_step = -1
        self._masked_step = -1  # the step in which a backward kernel masked its tile
        self._cta_issued = False  # the kernel class's once-per-CTA issue charged

    @property
    def cur(self) -> Step:
        return self.steps[-1]

    def _begin_step(self):
        self.steps.append(Step(pipelined=True))

    def _end_step(self):
        self.steps.append(Step(pipelined=False))

    def _rows_of(self, tensor: str) -> int:
        w = self.w
        return w.seq_len_q if tensor in QUERY_ROW_TENSORS else w.seq_len_k

    def _cols_of(self, tensor: str) -> int:
        if tensor == "Opart":
            return self.s.kv_splits * self.w.head_dim
        return self.w.seq_len_k if tensor in KEY_COLUMN_TENSORS else self.w.head_dim

    def _use(self, *tiles: Shape) -> None:
        """Note tiles used after the step that loaded them: that step's buffers stay live."""
        now = len(self.steps) - 1
        for t in tiles:
            if 0 <= t.step < now:
                self.steps[t.step].own_buffers = True

    def _made(self, t: Shape) -> Shape:
        """Note ``t`` as the tile the current step's last op produced (still in registers)."""
        self._fresh, self._fresh_step = t, len(self.steps) - 1
        return t

    def _is_fresh(self, t: Shape) -> bool:
        return t is self._fresh and self._fresh_step == len(self.steps) - 1

    def _elem_bytes(self, tensor: str) -> int:
        return FP32_BYTES if tensor in FP32_STATE_TENSORS else self.esize

    # --- memory ---------------------------------------------------------------------
    def _accesses(self, tensor, bh, row0, nrows, col0, row_bytes, heads) -> list[Access]:
        """One access per batch-head the (packed) rows come from, with its bytes."""
        rows = self._rows_of(tensor)
        return [
            Access(
                tensor,
                bh + i,
                row0,
                col0,
                max(0, min(len(range(i, nrows, heads)), rows - row0)) * row_bytes,
            )
            for i in range(heads)
        ]

    def load(self, tensor, bh, row0, nrows, col0=0, ncols=None, *, heads=1):
        if tensor in VECTOR_TENSORS:
            self.cur.reads += self._accesses(tensor, bh, row0, nrows, col0, FP32_BYTES, heads)
            return Shape(nrows, None, False)
        ncols = self._cols_of(tensor) - col0 if ncols is None else ncols
        vcols = max(0, min(ncols, self._cols_of(tensor) - col0))
        row_bytes = vcols * self._elem_bytes(tensor)
        self.cur.reads += self._accesses(tensor, bh, row0, nrows, col0, row_bytes, heads)
        # Operand tiles land in shared memory (cp.async or ld/st), padded rows included;
        # they are fills, which the engine may charge the shared-memory lane less for.
        fill = nrows * ncols * self._elem_bytes(tensor)
        self.cur.smem_bytes += fill
        self.cur.smem_fill_bytes += fill
        return self._made(Shape(nrows, ncols, True, len(self.steps) - 1))

    def store(self, tensor, bh, row0, tile, col0=0, *, heads=1):
        self._use(tile)
        vcols = 1 if tile.cols is None else max(0, min(tile.cols, self._cols_of(tensor) - col0))
        row_bytes = vcols * self._elem_bytes(tensor)
        self.cur.writes += self._accesses(tensor, bh, row0, tile.rows, col0, row_bytes, heads)
        if tile.in_smem and self._is_fresh(tile):
            # Stored from registers: the op that made it need not have written it back.
            self.cur.smem_bytes -= tile.elems * FP32_BYTES
        elif tile.in_smem:
            self.cur.smem_bytes += tile.elems * FP32_BYTES

    def store_add(self, tensor, bh, row0, tile):
        # Atomic adds (RED): the bytes go to the L2 as writes; the instructions are in the
        # step's mix.
        if tensor not in ATOMIC_TENSORS:
            # The engine knows atomic bytes by their tensor: another one would be timed as
            # plain writes without a word.
            raise ValueError(f"store_add into {tensor}: atomic adds go to {ATOMIC_TENSORS} only")
        self._use(tile)
        vcols = max(0, min(tile.cols or 1, self._cols_of(tensor)))
        self.cur.writes += self._accesses(tensor, bh, row0, tile.rows, 0, vcols * FP32_BYTES, 1)

    # --- tensor core ------------------------------------------------------------------
    def _a_in_registers(self, a: Shape) -> bool:
        """Whether a split-q A operand loaded in an earlier step is read from registers.

        A tensor-core kernel keeps the Q fragments of a warp in registers across the K/V
        loop when they are few: 16 rows per warp and d <= 128, at most 32 registers per
        thread (flash2_tc.cu, ``Q_IN_REGS``); otherwise it reads them from shared memory
        again for every tile.
        """
        if self.split_k or self.w.dtype == "fp32" or not 0 <= a.step < len(self.steps) - 1:
            return False
        frag_bytes_per_thread = a.elems // self.s.warps * self.esize // WARP_THREADS
        if a.rows // self.s.warps > 16 or frag_bytes_per_thread > Q_REGISTER_BYTES:
            return False
        if a.step not in self._a_in_regs:  # the first use reads it into the registers
            self._a_in_regs.add(a.step)
            return False
        return True

    def _operand_smem(self, a: Shape, b: Shape) -> int:
        if self.kernel_class.product == "wgmma":
            # The tensor cores read wgmma's shared-memory operands through their own path
            # (no ldmatrix into the warps' registers); the measured per-N rates include it.
            return 0
        warps = self.s.warps
        a_bytes = a.elems * self.esize if a.in_smem and not self._a_in_registers(a) else 0
        b_bytes = b.elems * self.esize if b.in_smem else 0
        # split-q: each warp reads its own rows of A and all of B; split-k: all of A, its part of B.
        return (a_bytes + warps * b_bytes) if not self.split_k else (warps * a_bytes + b_bytes)

    def _stage(self, t: Shape) -> None:
        """A warp-grid product reads its operands from shared memory: a loaded tile is there;
        a tile computed on chip (P, dS) is written there first, once per step."""
        if t.in_smem:
            return
        now = len(self.steps) - 1
        if self._staged_step != now:
            self._staged, self._staged_step = [], now
        if not any(x is t for x in self._staged):
            self._staged.append(t)
            self.cur.smem_bytes += t.elems * self.esize

    def _grid_operand_smem(self, m: int, n: int, k: int, a: Shape, b: Shape) -> int:
        """Shared-memory bytes a product's operands cost with its ``m x n`` output tiled by
        the warps in a ``wm x wn`` grid: each warp reads its ``m/wm`` rows of A and ``n/wn``
        columns of B, so A is read ``wn`` times and B ``wm`` times; the grid is the one
        that reads least (at least an m16 x n8 fragment per warp)."""
        self._stage(a)
        self._stage(b)
        warps = self.s.warps
        costs = [
            (warps // wm) * m * k + wm * n * k
            for wm in range(1, warps + 1)
            if warps % wm == 0 and wm <= max(1, m // 16) and warps // wm <= max(1, n // 8)
        ]
        # A tile too small for the warps' fragments: the warps share it (each reads it whole).
        cost = min(costs) if costs else warps * (m * k + n * k)
        return cost * self.esize

    def _product(self, acc, a, b, transpose_a, transpose_b) -> tuple[int, int]:
        """Charge the products' FLOPs and operand traffic; the output's ``(rows, cols)``."""
        self._use(*(t for t in (acc, a, b) if t is not None))
        m, k = (a.cols, a.rows) if transpose_a else (a.rows, a.cols)
        n = b.rows if transpose_b else b.cols
        self.cur.mma_flops += 2 * m * n * k
        if self.grid:
            self.cur.smem_bytes += self._grid_operand_smem(m, n, k, a, b)
        else:
            self.cur.smem_bytes += self._operand_smem(a, b)
        return m, n

    def matmul(self, a, b, *, transpose_a=False, transpose_b=False, scale=1.0):
        m, n = self._product(None, a, b, transpose_a, transpose_b)
        if scale != 1.0:
            self.cur.fp32_ops += m * n
        out = Shape(m, n, self.smem_results)
        if out.in_smem:
            self.cur.smem_bytes += out.elems * FP32_BYTES
        return out

    def matmul_acc(self, acc, a, b, *, transpose_a=False):
        self._product(acc, a, b, transpose_a, False)
        if self.split_k:
            # Warps hold partial sums over their slice of keys: write, barrier, read and add.
            self.cur.smem_bytes += 2 * self.s.warps * acc.elems * FP32_BYTES
            self.cur.fp32_ops += self.s.warps * acc.elems
            self.cur.barriers += 1
        if acc.in_smem:
            self.cur.smem_bytes += 2 * acc.elems * FP32_BYTES
        return acc

    # --- FP32 -------------------------------------------------------------------------
    def _elementwise(self, t: Shape, ops_per_elem: int = 1) -> None:
        self._use(t)
        self.cur.fp32_ops += ops_per_elem * t.elems
        if t.in_smem and t.cols is not None:
            self.cur.smem_bytes += 2 * t.elems * FP32_BYTES

    def _row_reduce(self, t: Shape) -> Shape:
        if self._is_fresh(t):  # reduced on the way, from registers
            self._use(t)
            self.cur.fp32_ops += t.elems
        else:
            self._elementwise(t)
        if self.split_k:
            # Each warp holds a slice of every row: exchange the partial results.
            self.cur.smem_bytes += 2 * self.s.warps * t.rows * FP32_BYTES
            self.cur.barriers += 1
        return Shape(t.rows, None, False)

    def row_max(self, t):
        return self._row_reduce(t)

    def row_sum(self, t):
        return self._row_reduce(t)

    def maximum(self, a, b):
        self._use(a, b)
        self.cur.fp32_ops += a.elems
        return a

    def scale_rows(self, t, v):
        self._elementwise(t)
        return t

    def add(self, a, b):
        self._elementwise(a)
        return a

    def mul(self, a, b):
        self._use(b)
        self._elementwise(a)
        return self._made(Shape(a.rows, a.cols, a.in_smem))

    def sub_rows(self, t, v):
        self._use(v)
        self._elementwise(t)
        return self._made(Shape(t.rows, t.cols, t.in_smem))

    def scale(self, t, factor):
        self._elementwise(t)
        return self._made(Shape(t.rows, t.cols, t.in_smem))

    def div_rows(self, t, v):
        self._elementwise(t)
        return self._made(Shape(t.rows, t.cols, t.in_smem))

    def mask(self, s, q0, k0, *, heads=1):
        if self.cur.mma_flops and self.k.backward_step():
            self._masked_step = len(self.steps) - 1  # the backward's mix adds the mask's
        elif self.cur.mma_flops:
            # The masking path of the flash kernels' loop, this tile only.
            self.cur.instrs += cta_mask_issue(self.kernel_class, self._shape(s))
        self._elementwise(s)
        return self._made(s)

    def full(self, nrows, ncols, value):
        return Shape(nrows, ncols, ncols is not None and self.smem_results)

    # --- SFU --------------------------------------------------------------------------
    def exp_sub_rows(self, t, m):
        self.cur.exp_ops += t.elems
        if self.cur.mma_flops and self.k.backward_step():
            # The backward's step (:func:`gpusim.instruction_mix.bwd_step_mix`): the whole
            # step's mix, charged once, where its probabilities are recomputed.
            masked = self._masked_step == len(self.steps) - 1
            self.cur.instrs += cta_bwd_step_issue(
                self.kernel_class, self._shape(t), self.k.barriers_per_step(), masked
            )
        elif self.cur.mma_flops:
            # A softmax between two products (the flash kernels' loop): the step's mix.
            # A softmax of its own (the standard kernel) is not that code and is not counted.
            self.cur.instrs += cta_step_issue(self.kernel_class, self._shape(t))
            once = self.kernel_class.cta_issue_per_warp
            if once and not self._cta_issued:  # a compiled kernel's code outside its steps
                self._cta_issued = True
                self.cur.instrs += self.s.warps * once
        self._elementwise(t)  # the subtraction
        return self._made(Shape(t.rows, t.cols, t.in_smem))

    def _shape(self, scores: Shape) -> StepShape:
        """The step's shape for the instruction mix: a compute warp's share of the score tile."""
        warps = self.s.warps
        rows, keys = scores.rows, scores.cols or 1
        per_warp = (rows, keys / warps) if self.split_k else (rows / warps, keys)
        return StepShape(*per_warp, self.w.head_dim, warps, self.s.stages, self.esize, keys)

    def exp_diff(self, a, b):
        self._use(a, b)
        self.cur.exp_ops += a.elems
        self.cur.fp32_ops += a.elems
        return a

    def log(self, v):
        # MUFU.LG2 on the SFU (counted with the exponentials), then a multiply by ln 2.
        self._use(v)
        self.cur.exp_ops += v.elems
        self.cur.fp32_ops += v.elems
        return Shape(v.rows, None, False)

    def barrier(self):
        self.cur.barriers += 1

    # --- loops ------------------------------------------------------------------------
    #: loops shorter than this are traced step by step (nothing to gain)
    MIN_REPEAT = 4

    def repeat(self, iterations):
        """Trace iterations 0, 1, 2 and the last; record 1 .. last as one compressed step.

        Iteration 0 stays a step of its own (it may differ: the first use of a tile that
        stays in registers). Iterations 1 and 2 give each tensor's row stride; iteration 2
        and the last must be iteration 1 moved by it, or the loop broke the promise of
        :meth:`TileMachine.repeat` and tracing stops with an error.
        """
        # a range stays one: a K/V-outer loop hands over thousands of long runs
        items = iterations if isinstance(iterations, range) else list(iterations)
        n = len(items)
        if n < self.MIN_REPEAT:
            yield from items
            return
        yield items[0]
        traced = []
        for j in (items[1], items[2], items[-1]):
            mark = len(self.steps)
            yield j
            traced.append(self._iteration_step(mark, j))
        (i1, s1), (_i2, s2), (_il, sl) = traced
        strides = _strides(s1, s2)
        if s2 != _moved(s1, strides, 1) or sl != _moved(s1, strides, n - 2):
            raise ValueError(
                f"tm.repeat in {self.k.name}: iterations {items[1]}, {items[2]} and "
                f"{items[-1]} are not one step moved by fixed rows"
            )
        s1.repeat, s1.strides = n - 1, strides
        self._folds[i1] = [i for i in range(i1 + 1, len(self.steps) - 1)]

    def _iteration_step(self, mark: int, j: int) -> tuple[int, Step]:
        """The one pipelined step iteration ``j`` recorded from step index ``mark`` on."""
        made = self.steps[mark:]
        if len(made) != 2 or not made[0].pipelined or _has_content(made[1]):
            raise ValueError(
                f"tm.repeat in {self.k.name}: iteration {j} is not exactly one tm.step()"
            )
        return mark, made[0]

    def program(self) -> CtaProgram:
        """The recorded program, with empty steps dropped and compressed loops folded."""
        drop: set[int] = set()
        for head, folded in self._folds.items():
            own = self.steps[head].own_buffers
            if any(self.steps[i].own_buffers != own for i in folded if self.steps[i].pipelined):
                raise ValueError(f"tm.repeat in {self.k.name}: a tile outlives its iteration")
            drop.update(folded)
        keep = [s for i, s in enumerate(self.steps) if i not in drop and _has_content(s)]
        return CtaProgram(keep)


def _has_content(s: Step) -> bool:
    return bool(s.reads or s.writes or s.mma_flops or s.fp32_ops or s.exp_ops or s.barriers)


def _strides(s1: Step, s2: Step) -> tuple[tuple[str, int, int], ...]:
    """Each tensor's (row, column) stride from one iteration's step to the next."""
    out: dict[str, tuple[int, int] | None] = {}
    pairs = list(zip(s1.reads, s2.reads, strict=False)) + list(
        zip(s1.writes, s2.writes, strict=False)
    )
    for a, b in pairs:
        d = (b.row0 - a.row0, b.col0 - a.col0)
        if a.tensor == b.tensor and out.setdefault(a.tensor, d) != d:
            out[a.tensor] = None  # inconsistent: the check below fails
    return tuple(sorted((t, *d) for t, d in out.items() if d is not None and d != (0, 0)))


def _moved(s: Step, strides: tuple[tuple[str, int, int], ...], r: int) -> Step:
    return (
        replace(s, repeat=1, strides=())
        if not strides
        else replace(s, strides=strides).repetition(r)
    )


def trace_cta(kernel: Kernel, bh: int, block: int) -> CtaProgram:
    """Trace one CTA."""
    tm = TracingMachine(kernel)
    kernel.body(tm, bh, block)
    return tm.program()


def trace_classes(kernel: Kernel) -> list[CtaClass]:
    """Trace one representative CTA per class of ``kernel`` (at bh = 0)."""
    classes: dict[object, CtaClass] = {}
    for block in range(kernel.blocks_per_bh()):
        key = kernel.block_class(block)
        cls = classes.get(key)
        if cls is None:
            classes[key] = CtaClass(key, block, [block], trace_cta(kernel, 0, block))
        else:
            cls.blocks.append(block)
    return list(classes.values())


def program_for(kernel: Kernel, cls: CtaClass, bh: int, block: int) -> CtaProgram:
    """The program of CTA ``(bh, block)`` derived from its class representative.

    K and V are those of the query head's K/V head (``Workload.kv_bh``), the rest its own.
    """
    delta = block - cls.representative_block
    shift = {t: delta * rows for t, rows in kernel.own_rows.items()}
    if not any(shift.values()) and bh == 0:
        return cls.program
    tensors = {a.tensor for s in cls.program.steps for a in (*s.reads, *s.writes)}
    bh_of = {t: kernel.tensor_bh(t, bh) for t in tensors}
    return CtaProgram([s.relabelled(bh, shift, bh_of) for s in cls.program.steps])
