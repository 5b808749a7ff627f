"""Split-KV (FlashDecoding) as the CUDA kernels run it: the key slices and the combine kernel.

``flash2_tc.cu`` with ``SPLIT`` gives each (query block, batch*head) ``kv_splits`` CTAs; CTA
``s`` walks slice ``s`` of the key blocks its query block sees (all of them, or up to the
diagonal under a causal mask), the slices as even as possible: the first ``total % splits``
slices hold one block more (:func:`split_slices`, the same rule as ``flash2_split_slice`` in
``flash2_common.cuh``). A slice can be empty when a causal query block sees fewer blocks
than there are splits; its CTA still writes O = 0 and a log-sum-exp of -inf for its rows.
``flash2_combine.cu`` then merges the slices of each row (:class:`CombineInstance`).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Rows (warps) per CTA of the combine kernel, and its threads.
COMBINE_ROWS_PER_CTA = 4
COMBINE_THREADS = 32 * COMBINE_ROWS_PER_CTA


def visible_key_blocks(q0: int, rows: int, nq: int, nk: int, causal: bool, block_n: int) -> int:
    """Key blocks the query block of ``rows`` rows at ``q0`` visits (``flash2_kv_tiles``):
    all ``ceil(nk / block_n)``, or under a causal mask those up to its last row's diagonal
    (bottom-right: query ``i`` sees keys ``j <= i + nk - nq``); 0 when it sees no key."""
    last_row = min(q0 + rows, nq) - 1
    last_key = min(nk - 1, last_row + nk - nq) if causal else nk - 1
    return 0 if last_key < 0 else last_key // block_n + 1


def split_slices(total_blocks: int, splits: int) -> list[tuple[int, int]]:
    """``(first block, block count)`` of each slice of ``total_blocks`` key blocks."""
    base, rem = divmod(total_blocks, splits)
    return [(s * base + min(s, rem), base + (1 if s < rem else 0)) for s in range(splits)]


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

    def grid_ctas(self, rows: int) -> int:
        """CTAs for ``rows`` output rows (batch*heads*queries), one warp per row."""
        return -(-rows // COMBINE_ROWS_PER_CTA)

    def as_dict(self) -> dict:
        """Plain fields plus the derived ones a results file wants."""
        return {
            "dtype": self.dtype,
            "head_dim": self.head_dim,
            "key": self.key,
            "name_expression": self.name_expression,
            "threads": self.threads,
        }
