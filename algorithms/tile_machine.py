"""The tile-machine interface: the only vocabulary an algorithm may use.

An algorithm is written once against :class:`TileMachine` and run by several
interpreters: :class:`algorithms.numeric.NumericMachine` computes with NumPy,
:class:`algorithms.tracing.TracingMachine` records the per-CTA tile program that
the engine times. A CTA sees one (batch, head) pair of 2-D tensors, named
``Q`` (Nq x d), ``K``, ``V`` (Nk x d), ``O`` (Nq x d), ``m``, ``l`` (Nq, row
statistics), ``Oacc`` (Nq x d, the running output kept in HBM between steps by
the K/V-outer algorithms), ``S``, ``P`` (Nq x Nk, for the algorithms that
materialise them), and for split-KV decoding ``Opart`` (Nq x (kv_splits·d): split
``s``'s normalised partial output in columns ``s·d ..``) and ``LSE`` (Nq x kv_splits:
split ``s``'s log-sum-exp of each row in column ``s``; the forward of a training step
writes its rows' log-sum-exp in column 0). The backward pass adds ``dO`` (Nq x d, the
output's gradient, an input), ``Dsum`` (Nq, ``rowsum(dO * O)``), ``dQacc`` (Nq x d, dQ
accumulated by atomic adds), ``dQ`` (Nq x d), ``dK``, ``dV`` (Nk x d, per K/V head) and,
with grouped K/V heads, ``dKexp``, ``dVexp`` (Nk x d per query head, summed over each group
into ``dK``, ``dV``). ``m``, ``l``, ``Oacc``, ``Opart``, ``LSE``, ``Dsum`` and ``dQacc``
are stored in fp32, the rest in the workload's storage type.
With grouped K/V heads (GQA), ``K`` and ``V`` exist once per K/V head: a body loads
them with the K/V head's index (:meth:`gpusim.workload.Workload.kv_bh`).

Tiles are opaque handles; only the machine looks inside. Elementwise ops
broadcast a row vector (shape ``(r,)``) against a tile (shape ``(r, c)``) by rows.

Loops. A plain Python loop is always right. A main loop of thousands of alike steps
(the unmasked K/V tiles of a long causal row) may be written
``for j in tm.repeat(range(...)):`` instead: a promise that every iteration is one
``tm.step()`` doing the same work, whose accesses move by the same number of rows from
one iteration to the next (forward or backward), and that the body keeps nothing per
iteration besides the tiles it carries (no list of per-iteration tiles). The numeric
interpreter runs every iteration; the tracer runs the first three and the last, checks
the promise on them and records the rest as one compressed step (``Step.repeat``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

Tile = Any  # an interpreter-specific handle (ndarray for numeric, shape record for tracing)


class TileMachine(ABC):
    """Operations available to an algorithm inside one CTA.

    Every method documents which hardware pipe it charges so that the tracing
    interpreter and the engine agree on what work is where.
    """

    # --- memory -------------------------------------------------------------------
    @abstractmethod
    def load(
        self,
        tensor: str,
        bh: int,
        row0: int,
        nrows: int,
        col0: int = 0,
        ncols: int | None = None,
        *,
        heads: int = 1,
    ) -> Tile:
        """Load rows ``[row0, row0+nrows)`` (cols ``[col0, col0+ncols)``) of ``tensor``.

        Rows past the tensor's end are padded (zeros; ``-inf`` for ``m`` and ``LSE``);
        the bytes counted are those of the rows that exist. Vectors ``m``, ``l`` ignore
        the column arguments; ``LSE`` is a vector per column (``col0``: the split).

        ``heads > 1`` packs the rows of the batch-heads ``bh .. bh + heads - 1`` into one
        tile, query-major (tile row ``r`` is row ``row0 + r // heads`` of batch-head
        ``bh + r % heads``; GQA packing): ``nrows`` counts the packed rows.
        """

    @abstractmethod
    def store(
        self, tensor: str, bh: int, row0: int, tile: Tile, col0: int = 0, *, heads: int = 1
    ) -> None:
        """Store ``tile`` at rows ``[row0, ...)`` of ``tensor``, clipped to the tensor's end
        (``heads``: packed rows, as :meth:`load` reads them)."""

    @abstractmethod
    def store_add(self, tensor: str, bh: int, row0: int, tile: Tile) -> None:
        """Add ``tile`` into rows ``[row0, ...)`` of the fp32 ``tensor`` (clipped to its end)
        with atomic adds: CTAs that add into the same rows need not be ordered (the L2
        performs the reductions; the bytes go from the SM to the L2 as writes)."""

    # --- tensor core ----------------------------------------------------------------
    @abstractmethod
    def matmul(
        self,
        a: Tile,
        b: Tile,
        *,
        transpose_a: bool = False,
        transpose_b: bool = False,
        scale: float = 1.0,
    ) -> Tile:
        """``scale * a @ b`` (``a.T`` and ``b.T`` where asked), inputs rounded to the storage
        type, fp32 accumulate. An operand computed on chip (the backward's ``P``, ``dS``)
        is rounded to the storage type first, as a kernel converts it for the tensor cores."""

    @abstractmethod
    def matmul_acc(self, acc: Tile, a: Tile, b: Tile, *, transpose_a: bool = False) -> Tile:
        """``acc + a @ b`` (``a.T @ b``) with ``a`` rounded to the storage type first (P to
        fp16/bf16)."""

    # --- FP32 pipe (row reductions, elementwise) -------------------------------------------
    @abstractmethod
    def row_max(self, t: Tile) -> Tile:
        """Maximum of each row (``-inf`` for a row that is entirely masked)."""

    @abstractmethod
    def row_sum(self, t: Tile) -> Tile:
        """Sum of each row."""

    @abstractmethod
    def maximum(self, a: Tile, b: Tile) -> Tile:
        """Elementwise maximum of two row vectors."""

    @abstractmethod
    def scale_rows(self, t: Tile, v: Tile) -> Tile:
        """``t * v[:, None]`` (or ``t * v`` for vectors)."""

    @abstractmethod
    def add(self, a: Tile, b: Tile) -> Tile:
        """Elementwise sum of two tiles or two vectors of equal shape."""

    @abstractmethod
    def mul(self, a: Tile, b: Tile) -> Tile:
        """Elementwise product of two tiles of equal shape."""

    @abstractmethod
    def sub_rows(self, t: Tile, v: Tile) -> Tile:
        """``t - v[:, None]``."""

    @abstractmethod
    def scale(self, t: Tile, factor: float) -> Tile:
        """``factor * t``."""

    @abstractmethod
    def div_rows(self, t: Tile, v: Tile) -> Tile:
        """``t / v[:, None]``; a row with ``v == 0`` (nothing visible) gives zeros, not NaN."""

    @abstractmethod
    def mask(self, s: Tile, q0: int, k0: int, *, heads: int = 1) -> Tile:
        """Set ``s[i, j] = -inf`` where key ``k0+j`` is past the keys' end or, if causal,
        not visible to query ``q0 + i // heads`` (``heads > 1``: packed rows, see
        :meth:`load`). Call it only on tiles that need it (ragged last key tile, diagonal
        band): the engine charges it as FP32 work."""

    @abstractmethod
    def full(self, nrows: int, ncols: int | None, value: float) -> Tile:
        """A new on-chip tile (or vector when ``ncols`` is None) filled with ``value``."""

    # --- SFU (exp) --------------------------------------------------------------------
    @abstractmethod
    def exp_sub_rows(self, t: Tile, m: Tile) -> Tile:
        """``exp(t - m[:, None])``; where ``m`` is ``-inf`` the row is all zeros (no NaN)."""

    @abstractmethod
    def exp_diff(self, a: Tile, b: Tile) -> Tile:
        """``exp(a - b)`` for row vectors, with ``b == -inf`` giving 1 (nothing seen yet)."""

    @abstractmethod
    def log(self, v: Tile) -> Tile:
        """Natural log of a row vector, ``-inf`` where ``v == 0`` (a row that saw no key).
        SFU (``MUFU.LG2``) and one FP32 multiply (by ln 2) per element."""

    # --- loops ----------------------------------------------------------------------------
    def repeat(self, iterations: Iterable[int]) -> Iterable[int]:
        """The iterations of a loop of alike steps (see the module docstring); this machine
        runs them all."""
        return iterations

    # --- synchronisation and pipelining ------------------------------------------------------
    @abstractmethod
    def barrier(self) -> None:
        """``__syncthreads()``: all warps of the CTA wait for each other."""

    @contextmanager
    def step(self) -> Iterator[None]:
        """Mark one iteration of the CTA's pipelined main loop.

        The engine overlaps the loads of step ``i+1`` with the compute of step
        ``i`` when the schedule has two or more stages.
        """
        self._begin_step()
        try:
            yield
        finally:
            self._end_step()

    def _begin_step(self) -> None:  # noqa: B027 - optional hook
        """Hook for interpreters that care about step boundaries."""

    def _end_step(self) -> None:  # noqa: B027 - optional hook
        """Hook for interpreters that care about step boundaries."""
