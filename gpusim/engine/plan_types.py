"""The plan a CTA class runs: its chunks of merged steps and the phases between them.

The data :mod:`gpusim.engine.plan` builds from a traced CTA program and the CTA groups
(:mod:`gpusim.engine.cta_group`) execute; kept apart so readers of plans need not import
the builder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from algorithms.program import CtaProgram


@dataclass(frozen=True, slots=True)
class TileRef:
    """A merged access of one chunk to one tensor, for the representative CTA at ``bh = 0``."""

    tensor: str
    row0: int
    col0: int
    nbytes: int
    own_rows: int  # rows per block for tensors the CTA's own block indexes; 0 if shared
    #: the tensor's batch-head for the CTA's grid batch-head bh is ``bh * bh_scale + bh_off``
    #: (a kernel that reads several heads of one tensor per CTA: Kernel.bh_scale)
    bh_scale: int = 1
    bh_off: int = 0


@dataclass(frozen=True, slots=True)
class Chunk:
    """``micros`` consecutive steps of one kind, merged."""

    reads: tuple[TileRef, ...]
    writes: tuple[TileRef, ...]
    read_bytes: int
    write_bytes: int
    work: tuple[tuple[str, float], ...]  # (pipe, amount) for the pipes with work
    barriers: int
    micros: int
    load_micros: int  # steps with at least one read
    head_frac: float  # share of the read bytes in the first step that reads
    tail_frac: float  # share of the compute time in the last step
    #: share of the compute time in the second product (P V: half the products' work),
    #: which a one-stage pipeline overlaps with the next step's first load
    second_product_frac: float = 0.0
    #: the chunk's steps' compute time at full rates, one after another (lumped.py)
    compute_ticks: float = 0.0
    #: of ``write_bytes``, those added atomically (``ATOMIC_TENSORS``: the backward's dQ)
    atomic_write_bytes: int = 0


@dataclass(frozen=True, slots=True)
class Load:
    """Part of a chunk's reads moved in a phase."""

    chunk: int
    frac: float
    latency_units: float  # multiples of the load latency charged before the transfer


@dataclass(frozen=True, slots=True)
class Phase:
    """Activities that start together; the phase ends when all have finished."""

    lookups: tuple[int, ...]  # chunks whose reads meet the L2 at this phase's start
    loads: tuple[Load, ...]
    compute: tuple[int, float] | None  # (chunk, fraction of its work)
    writes: tuple[int, ...]  # chunks whose writes are issued


@dataclass
class ClassPlan:
    """One CTA class of one kernel, ready to run."""

    key: object
    index: int
    rep_block: int
    blocks_per_bh: int  # CTAs of this class in each (batch, head)
    chunks: list[Chunk]
    phases: list[Phase]
    totals: dict[str, int] = field(default_factory=dict)  # per CTA: bytes and work
    #: the traced program the plan was built from (lumped groups walk its shared tiles)
    program: CtaProgram | None = None

    @property
    def compute_ticks(self) -> float:
        """The CTA's compute time at full rates, step after step (what lumping averages)."""
        return sum(c.compute_ticks for c in self.chunks)
