"""The schedule: how an algorithm is mapped onto the machine (tiles, warps, stages).

One object describes a configuration for the simulator, the tuner and the CUDA
kernel alike, so "the configuration we predicted" and "the one we ran" are the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_serializer

WarpSplit = Literal["split-q", "split-k"]
Residency = Literal["registers", "smem"]
KvOrder = Literal["forward", "backward"]
QOrder = Literal["last-first", "first-first"]
#: The product instruction of a kernel's two matrix products: ``mma`` (mma.sync m16n8k16,
#: one warp), ``wgmma`` (Hopper's warpgroup MMA, four warps), ``ffma`` (SIMT FFMA loops).
Product = Literal["mma", "wgmma", "ffma"]
#: How K/V (and Q) tiles arrive in shared memory: ``cp.async`` (per-thread 16-byte async
#: copies), ``tma`` (Hopper's bulk tensor copies, one thread per tile), ``plain`` (loads into
#: registers, then shared-memory stores).
TileCopy = Literal["cp.async", "tma", "plain"]
#: How a CTA writes its output block: ``staged`` (through shared memory, 16-byte stores or a
#: TMA store, as the project's mma.sync kernel does) or ``fragments`` (4-byte stores straight
#: from the products' accumulator registers, as the project's wgmma kernel does).
OStore = Literal["staged", "fragments"]
#: Where the per-step instruction counts come from: ``formulas`` (gpusim.instruction_mix, of
#: the tile shapes and the class, any kernel) or ``sass-fit`` (the least-squares fit to the
#: project's compiled loops, for those kernels only) or ``compiled`` (the backward's formulas
#: with what nvcc emits for FlashAttention-2's arithmetic: ``--pass bwd`` only, its default).
InstructionCounts = Literal["formulas", "sass-fit", "compiled"]

#: Other spellings of a product instruction: the PTX name ``mma.sync`` (as the command-line
#: contract writes it) is ``mma``.
PRODUCT_ALIASES = {"mma.sync": "mma"}

#: The implementation-class fields and their defaults (the project's kernel): left out of a
#: schedule's dump when at them, so that the records, digests and cache keys of every
#: schedule without a class read as they did before the fields existed.
CLASS_FIELD_DEFAULTS = {"mma": None, "tile_copy": None, "producer_warps": 0,
                        "instruction_counts": None, "o_store": None,
                        "step_issue_per_warp": None, "cta_issue_per_warp": None}  # fmt: skip

#: The tile fields: without them the default rule's choice is needed (the rest have defaults).
TILE_FIELDS = ("block_m", "block_n", "warps", "stages")
#: The backward's own tiles in a training step (``--pass fwd+bwd``: FlashAttention-2 runs
#: its backward with other tiles than its forward): None runs the backward with the
#: forward's, and is left out of a schedule's dump.
BWD_FIELDS = tuple(f"bwd_{f}" for f in TILE_FIELDS)

#: Most key splits a schedule may ask for (FlashDecoding uses a few to a few hundred).
MAX_KV_SPLITS = 1024


class Schedule(BaseModel):
    """Tile sizes and mapping parameters of one algorithm (which algorithm is said beside it,
    where the schedule is used: ``simulate("flash2", workload, schedule, profile)``).

    - ``block_m`` (Br): query rows per tile; ``block_n`` (Bc): key rows per tile.
    - ``warps``: warps per CTA; ``stages``: shared-memory buffers for K/V tiles
      (>= 2 overlaps the next tile's load with the current tile's compute).
    - ``warp_split``: ``split-q`` (FlashAttention-2: each warp owns Br/warps query
      rows) or ``split-k`` (FlashAttention-1: warps share the Q tile and split the
      K/V tile, exchanging partial rows through shared memory).
    - ``residency``: where S/P, O, m, l live between steps: ``registers`` (as real
      FlashAttention kernels do) or ``smem`` (as the seed 001 kernel does).
    - ``kv_splits`` (FlashDecoding): each (batch, head, query block) is split into this
      many CTAs over slices of the keys; each writes a partial O and its log-sum-exp and a
      second kernel combines them. 1: no split.
    - ``kv_order``: the direction a CTA walks its K/V blocks: ``forward`` from block 0, or
      ``backward`` from the last block it sees (the diagonal, under a causal mask).
    - ``q_order``: which query blocks of a (batch, head) are launched first:
      ``last-first`` (``blockIdx.x`` counts down the blocks, so the longest causal CTAs
      start first) or ``first-first``.
    - ``pack_gqa``: with grouped K/V heads, put the queries of a group's heads into the
      rows of one tile (one CTA reads the group's K/V once) instead of a CTA per head.

    The implementation class (:mod:`gpusim.kernel_class`; None: the project's own kernel
    for the storage type, mma.sync for fp16/bf16 and FFMA for fp32, with cp.async copies):

    - ``mma``: the product instruction (``mma``, ``wgmma``, ``ffma``);
    - ``tile_copy``: how tiles arrive (``cp.async``, ``tma``, ``plain``);
    - ``producer_warps``: warp specialization, warps that only copy tiles, beside the
      ``warps`` that compute (0: every warp does both);
    - ``instruction_counts``: ``formulas``, ``sass-fit`` or ``compiled`` (None: the fit for
      the project's kernels, the formulas for every other class; ``compiled``, mma.sync only,
      the formulas plus what nvcc emits per score element without fast math, as in PyTorch's
      loops); the backward's step: ``compiled`` (the default:
      :func:`gpusim.instruction_mix.bwd_step_mix`) or ``formulas`` (the source's arithmetic);
    - ``o_store``: how the output block is written, ``staged`` or ``fragments`` (None: the
      project's kernel of the class, ``fragments`` for wgmma, ``staged`` for the others);
    - ``step_issue_per_warp``: the warp-instructions one compute warp issues in a steady
      step (the forward's or, with ``--pass bwd``, the backward's) besides its products
      (HMMA, ldmatrix), as a compiled loop runs them
      (``simulate(..., binary_timing="counts")`` reads it off a binary); None: the class's
      ``instruction_counts``. A masked tile still adds the class's mask;
    - ``cta_issue_per_warp``: warp-instructions a compute warp issues once per CTA outside
      the steps (a compiled forward's set-up, epilogue and peeled steps:
      :mod:`gpusim.engine.cta_issue`), charged on its first product step; None: none.

    A training step's backward may run other tiles than its forward: ``bwd_block_m``,
    ``bwd_block_n``, ``bwd_warps``, ``bwd_stages`` (None: the forward's; :meth:`backward`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    block_m: int = Field(128, gt=0, le=4096)
    block_n: int = Field(64, gt=0, le=4096)
    warps: int = Field(4, gt=0, le=64)
    stages: int = Field(2, gt=0, le=8)
    warp_split: WarpSplit = "split-q"
    residency: Residency = "registers"
    kv_splits: int = Field(1, gt=0, le=MAX_KV_SPLITS)
    kv_order: KvOrder = "forward"
    q_order: QOrder = "last-first"
    pack_gqa: bool = False
    mma: Product | None = None
    tile_copy: TileCopy | None = None
    producer_warps: int = Field(0, ge=0, le=32)
    instruction_counts: InstructionCounts | None = None
    o_store: OStore | None = None
    step_issue_per_warp: float | None = Field(None, gt=0, le=1_000_000)
    cta_issue_per_warp: float | None = Field(None, ge=0, le=10_000_000)
    bwd_block_m: int | None = Field(None, gt=0, le=4096)
    bwd_block_n: int | None = Field(None, gt=0, le=4096)
    bwd_warps: int | None = Field(None, gt=0, le=64)
    bwd_stages: int | None = Field(None, gt=0, le=8)

    @field_validator("mma", mode="before")
    @classmethod
    def _product_alias(cls, value):
        return PRODUCT_ALIASES.get(value, value) if isinstance(value, str) else value

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        out = handler(self)
        for k, default in (CLASS_FIELD_DEFAULTS | dict.fromkeys(BWD_FIELDS)).items():
            if k in out and out[k] == default:
                del out[k]
        return out

    @property
    def has_bwd_tiles(self) -> bool:
        """Whether the backward's tiles are set apart from the forward's."""
        return any(getattr(self, k) is not None for k in BWD_FIELDS)

    def forward(self) -> Schedule:
        """The schedule the forward's kernels run (the backward's own tiles left out)."""
        return self.model_copy(update=dict.fromkeys(BWD_FIELDS)) if self.has_bwd_tiles else self

    def backward(self) -> Schedule:
        """The schedule the backward's kernels run: its own tiles where set, else the
        forward's, and the rest of this schedule."""
        if not self.has_bwd_tiles:
            return self
        own = {t: getattr(self, b) for t, b in zip(TILE_FIELDS, BWD_FIELDS, strict=True)}
        return self.model_copy(
            update={k: v for k, v in own.items() if v is not None} | dict.fromkeys(BWD_FIELDS)
        )

    def with_backward(self, backward: Schedule) -> Schedule:
        """This schedule running its backward on ``backward``'s tiles (the ``bwd_*`` fields
        set only where they differ from this schedule's)."""
        own = {
            b: getattr(backward, t)
            for t, b in zip(TILE_FIELDS, BWD_FIELDS, strict=True)
            if getattr(backward, t) != getattr(self, t)
        }
        return self.model_copy(update=own) if own else self

    def label(self, algorithm: str | None = None) -> str:
        """A short human-readable name, e.g. ``flash2 Br128 Bc64 w4 s2 split-q registers``
        (without the algorithm's name when none is given)."""
        text = (
            f"Br{self.block_m} Bc{self.block_n} w{self.warps} s{self.stages}"
            f" {self.warp_split} {self.residency}"
        )
        # The long-context fields only when they differ from their defaults, so the labels
        # of every schedule without them read as before.
        if self.kv_splits != 1:
            text += f" splits{self.kv_splits}"
        if self.kv_order != "forward":
            text += f" kv-{self.kv_order}"
        if self.q_order != "last-first":
            text += f" q-{self.q_order}"
        if self.pack_gqa:
            text += " pack-gqa"
        if self.mma is not None:
            text += f" {self.mma}"
        if self.tile_copy is not None:
            text += f" {self.tile_copy}"
        if self.producer_warps:
            text += f" producers{self.producer_warps}"
        if self.instruction_counts is not None:
            text += f" counts-{self.instruction_counts}"
        if self.o_store is not None:
            text += f" o-{self.o_store}"
        if self.step_issue_per_warp is not None:
            text += f" step-issue{self.step_issue_per_warp:g}"
        if self.cta_issue_per_warp is not None:
            text += f" cta-issue{self.cta_issue_per_warp:g}"
        if self.has_bwd_tiles:
            b = self.backward()
            text += f" bwd Br{b.block_m} Bc{b.block_n} w{b.warps} s{b.stages}"
        return text if algorithm is None else f"{algorithm} {text}"

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Schedule:
        """The schedule of a stored record; records written while a schedule also named its
        algorithm carry an ``algorithm`` key, which the record's own algorithm field repeats."""
        return cls(**{k: v for k, v in record.items() if k != "algorithm"})
