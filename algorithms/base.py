"""What an algorithm is: a sequence of kernels, each a grid of CTAs running one body.

An :class:`Algorithm` says which kernels it launches for a workload and schedule;
a :class:`Kernel` says how many CTAs it has, what each one does (``body``, written
against :class:`~algorithms.tile_machine.TileMachine`), what it keeps on chip, and
which of its CTAs run the same tile program (``block_class``), so that the tracer
and the engine can handle one representative per class. A kernel also describes the
code that runs it where that matters to the engine (which compiled CUDA kernel it is,
how it copies its tiles): the engine reads these fields, never a kernel's name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Literal

from algorithms.tile_machine import TileMachine
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: The tensors the query heads of a GQA group share: one matrix per K/V head, read by a body
#: at :meth:`~gpusim.workload.Workload.kv_bh` (``bh // group_size``).
KV_TENSORS = ("K", "V")
#: The tensors a body adds into with atomic adds (``store_add``), and only so: the engine
#: charges their writes at the L2's rate for atomics where the profile has one.
ATOMIC_TENSORS = ("dQacc",)


@dataclass(frozen=True)
class OnChip:
    """What one CTA keeps on chip: shared-memory buffers (bytes, by name) and threads."""

    smem_buffers_bytes: dict[str, int]
    threads: int
    regs_per_thread: int
    #: a launch choice, not a footprint: at most this many CTAs per SM (None: as many as
    #: fit). A kernel gets it by asking for more dynamic shared memory than it uses, or
    #: by a smaller carve-out; the tuner tries it because a full SM is not always fastest.
    max_ctas_per_sm: int | None = None

    @property
    def smem_bytes(self) -> int:
        """Total shared memory per CTA."""
        return sum(self.smem_buffers_bytes.values())


@dataclass(frozen=True)
class CompiledKernel:
    """Which template instance of the project's CUDA kernels (gpusim/kernels) runs a kernel."""

    #: "tc": flash2_tc.cu (fp16/bf16, tensor cores); "simt": flash2_simt.cu (fp32, FFMA)
    variant: Literal["tc", "simt"]
    dtype: str
    head_dim: int
    block_m: int
    block_n: int
    warps: int
    stages: int
    #: the tensor-core kernel's long-context switches the instance is compiled with
    #: (KernelInstance field names: ``kv_backward``, ``q_first``, ``gqa``, ``split``,
    #: ``pack``); empty for the grid instance
    switches: tuple[str, ...] = ()


@dataclass(frozen=True)
class Kernel(ABC):
    """One kernel launch: ``blocks_per_bh`` CTAs for each (batch, head) pair."""

    name: str
    workload: Workload
    schedule: Schedule
    #: tensors whose rows are indexed by the CTA's own block: rows per block (for relabelling).
    own_rows: dict[str, int] = field(default_factory=dict)

    @abstractmethod
    def blocks_per_bh(self) -> int:
        """Number of CTAs launched per (batch, head) pair."""

    @abstractmethod
    def body(self, tm: TileMachine, bh: int, block: int) -> None:
        """The tile program of CTA ``(bh, block)``."""

    @abstractmethod
    def on_chip(self) -> OnChip:
        """Shared memory, threads and registers of one CTA."""

    def block_class(self, block: int) -> Hashable:
        """CTAs with equal class run the same program up to ``own_rows`` shifts and ``bh``."""
        return block

    def last_blocks_first(self) -> bool:
        """Whether the launch hands out each batch-head's blocks from the last to the first
        (``blockIdx.x`` counting down the blocks) rather than in order."""
        return False

    def compiled_kernel(self) -> CompiledKernel | None:
        """The compiled CUDA kernel instance whose code this kernel is (None: none is)."""
        return None

    def uses_tile_instance(self) -> bool:
        """Whether this kernel's code is the schedule's flash2 tile instance (gpusim/kernels)
        or its main loop, so that the registers ptxas gives that instance are its own."""
        return False

    def products_in_warp_grid(self) -> bool:
        """Whether the warps tile each matrix product's output in a 2-D grid, operands
        computed on chip passing through shared memory (FlashAttention-2's backward: its
        transposed products need P and dS in another layout), rather than owning rows of
        every product with the B operand read whole by each warp (its forward's split-q)."""
        return False

    def backward_step(self) -> bool:
        """Whether a step of this kernel is the backward's (five products around the
        recomputed probabilities) rather than the forward's (two around a softmax): which
        instruction mix :mod:`gpusim.instruction_mix` describes for it."""
        return False

    def adds_atomically(self) -> bool:
        """Whether the body adds into global memory with atomic adds (``store_add``: the
        backward's dQ), which the L2 takes at its own rate where the profile measured one."""
        return False

    def barriers_per_step(self) -> int:
        """``__syncthreads()`` per step of the main loop, where a step's described mix counts
        them (the backward's); 0 where the tracer takes them from the body's calls only."""
        return 0

    def bh_scale(self) -> dict[str, int]:
        """Tensors a CTA reads at several batch-heads (a sum over a GQA group's query heads),
        each with the factor from the CTA's batch-head to the tensor's first one (the step's
        own offset added): the L2 names each head's tile apart (gpusim/engine/head_keys.py)."""
        return {}

    def copies_into_padded_rows(self) -> bool:
        """Whether the kernel copies its tiles with 16-byte ``cp.async`` into shared-memory
        rows padded by 16 bytes (the L2 then sends the SMs more bytes than it asks for: the
        profile's ``l2_fetch_bytes_per_byte_padded_row_copy``)."""
        return False

    def loads_tiles_async(self) -> bool:
        """Whether the kernel's loads are asynchronous tile copies into shared memory, a step's
        tiles asked for ahead of the step (a flash kernel's); False for a kernel that reads
        into registers as it goes (the split-KV combine)."""
        return True

    def load_bytes_in_flight_per_thread(self) -> int | None:
        """Global bytes a thread of this kernel's code keeps in flight at most while it
        reads a run of tiles that need not wait for each other (None: all it issues)."""
        return None

    @property
    def grid_batch_heads(self) -> int:
        """Batch-heads of the launch grid: the (batch, head) pairs, or the (batch, K/V head)
        pairs for a kernel whose CTAs each take a whole GQA group's heads."""
        return self.workload.batch_heads

    def kv_group(self) -> int:
        """Consecutive grid batch-heads whose CTAs read the same K and V (the GQA group of a
        grid over query heads; 1 where each grid batch-head has K/V of its own)."""
        return self.workload.group_size

    def tensor_bh(self, tensor: str, bh: int) -> int:
        """The batch-head of ``tensor`` that the CTAs of grid batch-head ``bh`` access (the
        first of them, for rows packed over several): its K/V head for K and V."""
        return bh // self.kv_group() if tensor in KV_TENSORS else bh

    @property
    def num_ctas(self) -> int:
        """Total CTAs of the launch."""
        return self.grid_batch_heads * self.blocks_per_bh()


class Algorithm(ABC):
    """An attention (or softmax) algorithm of the seeds, written once."""

    name: str = ""
    description: str = ""
    supports_causal: bool = True
    #: Schedule fields beyond the tiles that this algorithm implements (``kv_splits``,
    #: ``kv_order``, ``q_order``, ``pack_gqa``); any other left at a non-default value is
    #: refused, never ignored.
    supports_orders: frozenset[str] = frozenset()
    #: whether the query heads may share K/V heads (``heads_kv < heads``)
    supports_gqa: bool = False
    #: "smem" residency is the seeds' picture (everything in shared memory).
    default_residency: str = "registers"
    #: whether it has a backward pass (``Workload.pass_`` ``bwd`` or ``fwd+bwd``)
    supports_backward: bool = False

    @abstractmethod
    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        """The kernels launched, in order."""

    def check(self, workload: Workload, schedule: Schedule) -> None:
        """Raise :class:`GpusimError` if this algorithm cannot run this workload/schedule."""
        if workload.causal and not self.supports_causal:
            raise GpusimError(f"algorithm {self.name!r} does not support --causal")
        if workload.backward and not self.supports_backward:
            raise GpusimError(
                f"algorithm {self.name!r} has no backward pass (--pass {workload.pass_}); "
                f"flash2 (FlashAttention-2's) and standard (through P in HBM) have one"
            )
        if workload.heads_kv is not None and not self.supports_gqa:
            raise GpusimError(
                f"algorithm {self.name!r} does not support grouped K/V heads (--heads-kv "
                f"{workload.heads_kv} with --heads {workload.heads})"
            )
        if schedule.has_bwd_tiles and workload.pass_ != "fwd+bwd":
            raise GpusimError(
                "--bwd-block-m, --bwd-block-n, --bwd-warps and --bwd-stages set the backward's "
                "own tiles in a training step: they need --pass fwd+bwd (with --pass bwd, "
                "--block-m and the others are the backward's)"
            )
        defaults = type(schedule)()
        for name in ("kv_splits", "kv_order", "q_order", "pack_gqa"):
            value = getattr(schedule, name)
            if value != getattr(defaults, name) and name not in self.supports_orders:
                option = "--" + name.replace("_", "-")
                raise GpusimError(f"algorithm {self.name!r} does not support {option} {value}")


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for positive integers."""
    return -(-a // b)
