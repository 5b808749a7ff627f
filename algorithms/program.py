"""The tile program the tracing interpreter records and the engine times.

A CTA's program is a list of :class:`Step`. Each step lists the global tiles it
reads and writes (as :class:`Access`, so the L2 model can see reuse between
CTAs) and the work it does on each pipe. Steps made inside ``tm.step()`` are
``pipelined``: with two or more stages their loads may be issued while the
previous step computes; steps whose tiles each keep a buffer of their own
(``own_buffers``) may have all their loads in flight together.

Compressed loops. A step with ``repeat = n > 1`` stands for ``n`` steps in a row that
are alike but for their rows: repetition ``r`` (from 0) accesses every tile of tensor
``t`` ``r`` strides of ``t`` further on (rows and columns; a negative stride walks
backwards). The tracer
makes them from ``tm.repeat`` loops (:mod:`algorithms.tracing`), so a causal CTA's
thousands of unmasked K/V steps are one step with a count; totals multiply, and
:meth:`CtaProgram.expanded` gives the step-by-step program back.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field, replace


@dataclass(frozen=True, slots=True)
class Access:
    """One tile moved between the SM and the memory system."""

    tensor: str
    bh: int
    row0: int
    col0: int
    nbytes: int

    @property
    def key(self) -> tuple[str, int, int, int]:
        """Identity of the tile for cache modelling."""
        return (self.tensor, self.bh, self.row0, self.col0)


@dataclass(slots=True)
class Step:
    """Work between two pipeline boundaries of one CTA."""

    pipelined: bool = False
    reads: list[Access] = field(default_factory=list)
    writes: list[Access] = field(default_factory=list)
    mma_flops: int = 0  # tensor-core FLOPs (2 per multiply-add)
    fp32_ops: int = 0  # FP32 pipe operations (max, add, mul, compare, subtract)
    exp_ops: int = 0  # SFU exponentials
    smem_bytes: int = 0  # shared-memory bytes read + written by the CTA's warps
    barriers: int = 0
    #: warp-instructions besides the matrix products (softmax, bookkeeping, addresses),
    #: summed over the CTA's warps; they share the schedulers' issue slots
    instrs: float = 0.0
    #: the tiles this step loads are still used after it (each has a buffer of its own, as
    #: in a kernel that keeps a whole row on chip), so later steps' loads need not wait for
    #: this step's buffer to be freed: all such loads of a run may be in flight together
    own_buffers: bool = False
    #: of ``smem_bytes``, those that global loads write into shared memory (tile fills)
    smem_fill_bytes: int = 0
    #: how many steps this one stands for (a compressed loop; 1: itself only)
    repeat: int = 1
    #: ``(tensor, rows, columns)``: how far each repetition moves the tensor's accesses
    strides: tuple[tuple[str, int, int], ...] = ()

    @property
    def read_bytes(self) -> int:
        """Global bytes read in one repetition of this step."""
        return sum(a.nbytes for a in self.reads)

    @property
    def write_bytes(self) -> int:
        """Global bytes written in one repetition of this step."""
        return sum(a.nbytes for a in self.writes)

    def stride_of(self, tensor: str) -> tuple[int, int]:
        """Rows and columns each repetition moves ``tensor``'s accesses by."""
        return next(((r, c) for t, r, c in self.strides if t == tensor), (0, 0))

    def moved(self, fn: Callable[[Access], Access]) -> Step:
        """This step with every access mapped through ``fn`` (work, flags and count kept)."""
        return replace(self, reads=[fn(a) for a in self.reads], writes=[fn(a) for a in self.writes])

    def repetition(self, r: int) -> Step:
        """Repetition ``r`` (from 0) of this step, as a step of its own."""
        st = {t: (dr, dc) for t, dr, dc in self.strides}
        if r == 0 or not st:
            # lists of its own
            return replace(self, repeat=1, strides=(), reads=list(self.reads),
                           writes=list(self.writes))  # fmt: skip

        def move(a: Access) -> Access:
            dr, dc = st.get(a.tensor, (0, 0))
            if not (dr or dc):
                return a  # frozen: the same access serves every repetition
            # Not ``dataclasses.replace``: a causal CTA's program expands thousands of these.
            return Access(a.tensor, a.bh, a.row0 + r * dr, a.col0 + r * dc, a.nbytes)

        reads = [move(a) for a in self.reads]
        writes = [move(a) for a in self.writes]
        return replace(self, repeat=1, strides=(), reads=reads, writes=writes)

    def relabelled(
        self, bh: int, row_shift: dict[str, int], bh_of: dict[str, int] | None = None
    ) -> Step:
        """This step for another CTA of the same class: new ``bh``, own rows shifted.

        ``bh_of`` gives, per tensor, the batch-head that takes the place of the traced
        one's 0 where it is not ``bh`` (K and V of a GQA group: its K/V head); accesses keep
        their offset from it (the rows of a packed tile span several batch-heads).
        """
        bh_of = bh_of or {}

        def move(a: Access) -> Access:
            base = bh_of.get(a.tensor, bh)
            return replace(a, bh=base + a.bh, row0=a.row0 + row_shift.get(a.tensor, 0))

        return self.moved(move)


@dataclass(slots=True)
class CtaProgram:
    """The tile program of one CTA."""

    steps: list[Step]

    @property
    def step_count(self) -> int:
        """Steps of the program with every compressed loop counted out."""
        return sum(s.repeat for s in self.steps)

    def expanded(self) -> CtaProgram:
        """The same program step by step (no step with ``repeat > 1``)."""
        return CtaProgram(list(self.iter_steps()))

    def iter_steps(self) -> Iterator[Step]:
        """Every step in order, compressed loops counted out."""
        for s in self.steps:
            if s.repeat == 1:
                yield s
            else:
                for r in range(s.repeat):
                    yield s.repetition(r)

    def totals(self) -> dict[str, int]:
        """Sums over steps of bytes and work."""
        st = self.steps
        return {
            "read_bytes": sum(s.repeat * s.read_bytes for s in st),
            "write_bytes": sum(s.repeat * s.write_bytes for s in st),
            "mma_flops": sum(s.repeat * s.mma_flops for s in st),
            "fp32_ops": sum(s.repeat * s.fp32_ops for s in st),
            "exp_ops": sum(s.repeat * s.exp_ops for s in st),
            "smem_bytes": sum(s.repeat * s.smem_bytes for s in st),
            "smem_fill_bytes": sum(s.repeat * s.smem_fill_bytes for s in st),
            "barriers": sum(s.repeat * s.barriers for s in st),
        }

    def bytes_by_tensor(self) -> dict[str, list[int]]:
        """``{tensor: [read_bytes, write_bytes]}`` over the whole program."""
        out: dict[str, list[int]] = {}
        for s in self.steps:
            for a in s.reads:
                out.setdefault(a.tensor, [0, 0])[0] += s.repeat * a.nbytes
            for a in s.writes:
                out.setdefault(a.tensor, [0, 0])[1] += s.repeat * a.nbytes
        return out


@dataclass
class CtaClass:
    """CTAs that run one program up to ``bh`` and own-row shifts."""

    key: Hashable
    representative_block: int
    blocks: list[int]
    program: CtaProgram  # traced at bh = 0 for the representative block
    _expanded: CtaProgram | None = field(default=None, init=False, repr=False, compare=False)

    def expanded_program(self) -> CtaProgram:
        """``program`` step by step (kept: a tuner plans one class many times)."""
        if self._expanded is None:
            self._expanded = self.program.expanded()
        return self._expanded

    @property
    def count_per_bh(self) -> int:
        """How many CTAs of each (batch, head) pair belong to this class."""
        return len(self.blocks)
