"""The tile program the tracing interpreter records and the engine times.

A CTA's program is a list of :class:`Step`. Each step lists the global tiles it
reads and writes (as :class:`Access`, so the L2 model can see reuse between
CTAs) and the work it does on each pipe. Steps made inside ``tm.step()`` are
``pipelined``: with two or more stages their loads may be issued while the
previous step computes; steps whose tiles each keep a buffer of their own
(``own_buffers``) may have all their loads in flight together.
"""

from __future__ import annotations

from collections.abc import Hashable
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

    @property
    def read_bytes(self) -> int:
        """Global bytes read in this step."""
        return sum(a.nbytes for a in self.reads)

    @property
    def write_bytes(self) -> int:
        """Global bytes written in this step."""
        return sum(a.nbytes for a in self.writes)

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

        return Step(
            self.pipelined,
            [move(a) for a in self.reads],
            [move(a) for a in self.writes],
            self.mma_flops,
            self.fp32_ops,
            self.exp_ops,
            self.smem_bytes,
            self.barriers,
            self.instrs,
            self.own_buffers,
            self.smem_fill_bytes,
        )


@dataclass(slots=True)
class CtaProgram:
    """The tile program of one CTA."""

    steps: list[Step]

    def totals(self) -> dict[str, int]:
        """Sums over steps of bytes and work."""
        return {
            "read_bytes": sum(s.read_bytes for s in self.steps),
            "write_bytes": sum(s.write_bytes for s in self.steps),
            "mma_flops": sum(s.mma_flops for s in self.steps),
            "fp32_ops": sum(s.fp32_ops for s in self.steps),
            "exp_ops": sum(s.exp_ops for s in self.steps),
            "smem_bytes": sum(s.smem_bytes for s in self.steps),
            "smem_fill_bytes": sum(s.smem_fill_bytes for s in self.steps),
            "barriers": sum(s.barriers for s in self.steps),
        }

    def bytes_by_tensor(self) -> dict[str, list[int]]:
        """``{tensor: [read_bytes, write_bytes]}`` over the whole program."""
        out: dict[str, list[int]] = {}
        for s in self.steps:
            for a in s.reads:
                out.setdefault(a.tensor, [0, 0])[0] += a.nbytes
            for a in s.writes:
                out.setdefault(a.tensor, [0, 0])[1] += a.nbytes
        return out


@dataclass
class CtaClass:
    """CTAs that run one program up to ``bh`` and own-row shifts."""

    key: Hashable
    representative_block: int
    blocks: list[int]
    program: CtaProgram  # traced at bh = 0 for the representative block

    @property
    def count_per_bh(self) -> int:
        """How many CTAs of each (batch, head) pair belong to this class."""
        return len(self.blocks)
