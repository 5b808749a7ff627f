"""Split-KV (FlashDecoding) as the CUDA kernels run it, which is as the model has it.

``flash2_tc.cu`` with ``SPLIT`` gives each (query block, batch*head) ``kv_splits`` CTAs;
CTA ``s`` walks split ``s``'s slice of the key blocks, ``[s*Tc // N, (s+1)*Tc // N)``
(``Tc = ceil(Nk / Bc)``), clipped to the blocks its query block sees; a CTA with nothing left
exits at once and writes nothing, and ``flash2_combine.cu`` reads only the splits that have
keys for a row's query block. These are the rules of :mod:`algorithms.split_kv` (the
model's split and combine kernels); :func:`slice_blocks` and :func:`combine_rows_of` read
them from there, so that the kernels' checks and the model cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms.q_outer import q_rows
from algorithms.split_kv import combine_rows, split_slice, splits_with_keys
from algorithms.tiling import visible_kv_blocks
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Warps of a combine CTA (as algorithms.split_kv.COMBINE_WARPS), and its threads.
COMBINE_THREADS = 128


def slice_blocks(w: Workload, s: Schedule, split: int, q0: int) -> range:
    """The key blocks split ``split`` walks for the query block at ``q0`` (maybe none; a block
    of ``block_m / group`` queries with ``pack_gqa``)."""
    keys = split_slice(w, s, split)
    visible = visible_kv_blocks(w, q0, q_rows(w, s).queries, s.block_n)
    return range(keys.start, max(keys.start, min(keys.stop, visible)))


def splits_for_block(w: Workload, s: Schedule, q0: int) -> int:
    """How many splits (the first ones) have keys for the query block at ``q0``."""
    return splits_with_keys(w, s, visible_kv_blocks(w, q0, q_rows(w, s).queries, s.block_n))


def combine_rows_of(w: Workload, s: Schedule) -> int:
    """Query rows per combine CTA: a divisor of the query block's rows (one block per CTA)."""
    return combine_rows(q_rows(w, s).queries)


@dataclass(frozen=True, order=True)
class CombineInstance:
    """One template instance of ``flash2_combine`` (16-bit output, one head dim)."""

    dtype: str
    head_dim: int

    @property
    def name_expression(self) -> str:
        """The C++ expression NVRTC instantiates, e.g. ``flash2_combine<true,128>``."""
        return f"flash2_combine<{'true' if self.dtype == 'bf16' else 'false'},{self.head_dim}>"

    @property
    def key(self) -> str:
        """A file-name-safe identifier, e.g. ``combine_bf16_d128``."""
        return f"combine_{self.dtype}_d{self.head_dim}"

    @property
    def threads(self) -> int:
        """Threads per CTA."""
        return COMBINE_THREADS

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory (none)."""
        return 0

    def grid(self, w: Workload, rows: int) -> tuple[int, int, int]:
        """(row blocks of ``rows`` queries, batch*heads, 1)."""
        return (-(-w.seq_len_q // rows), w.batch_heads, 1)

    def as_dict(self) -> dict:
        """Plain fields plus the derived ones a results file wants."""
        return {
            "dtype": self.dtype,
            "head_dim": self.head_dim,
            "key": self.key,
            "name_expression": self.name_expression,
            "threads": self.threads,
        }
