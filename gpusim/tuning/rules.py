"""Block-size rules: the FlashAttention paper's, seed 000's, and the default schedule.

Units. The paper sizes blocks from ``M``, the on-chip memory *in elements*
(Algorithm 1: "on-chip SRAM of size M"; its IO analysis counts elements), so
the rules here take shared memory in bytes and divide by the element size of
the storage type. The ``4`` in ``M / (4d)`` is the paper's budget of four
``B x d`` tiles (Q, K, V, O) living on chip at once.
"""

from __future__ import annotations

from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: The practical block sizes the default rule chooses from, largest first.
PRACTICAL_BLOCKS = (128, 64, 32, 16)

#: ``register_estimate`` caps at the ISA's 255 per thread; reaching it means the tile spills.
MAX_REGS_PER_THREAD = 255


def _on_chip_elems(smem_bytes: int, elem_bytes: int) -> int:
    if smem_bytes <= 0 or elem_bytes <= 0:
        raise GpusimError(
            f"shared memory ({smem_bytes} B) and element size ({elem_bytes} B) must be positive"
        )
    return smem_bytes // elem_bytes


def paper_rule(smem_bytes: int, head_dim: int, elem_bytes: int) -> tuple[int, int]:
    """The FlashAttention paper's ``(Br, Bc)``: ``Bc = ceil(M/4d)``, ``Br = min(ceil(M/4d), d)``.

    ``M`` is the on-chip memory in elements: ``smem_bytes // elem_bytes``.
    """
    m = _on_chip_elems(smem_bytes, elem_bytes)
    bc = -(-m // (4 * head_dim))
    return min(bc, head_dim), bc


def seed_rule(smem_bytes: int, head_dim: int, elem_bytes: int) -> tuple[int, int]:
    """Seed 000's ``(Br, Bc)``: ``Br = ceil(M/4d)``, ``Bc = min(Br, d)``.

    This is seed 000's erratum: it swaps the paper's roles of Br and Bc (the
    paper caps Br at d, not Bc). Kept to show the difference; not used by default.
    """
    m = _on_chip_elems(smem_bytes, elem_bytes)
    br = -(-m // (4 * head_dim))
    return br, min(br, head_dim)


#: The rule's warps per CTA, and its stages in order of preference.
RULE_WARPS = 4
RULE_STAGES = (2, 1)
#: What a standard attention row too long for shared memory can run instead (its softmax
#: keeps a whole row of S on chip; these two stream the row from HBM in chunks).
STREAMED_ROW_HINT = "; softmax-online or softmax-3pass stream the row from HBM instead"


def tile_order(block_m: int, block_n: int) -> tuple[int, int, int]:
    """The rule's preference among tiles, as a sort key: the larger ``Br x Bc``, then the
    squarer tile, then the larger ``Br``."""
    return (-block_m * block_n, -min(block_m, block_n), -block_m)


def covering_block(n: int) -> int:
    """The smallest practical block covering ``n`` rows (a short sequence gets a small block)."""
    for b in reversed(PRACTICAL_BLOCKS):
        if b >= n:
            return b
    return PRACTICAL_BLOCKS[0]


def _footprint(algorithm: str, workload: Workload, schedule: Schedule) -> tuple[int, int, str]:
    """(max shared memory per CTA in bytes, max registers per thread, the biggest buffers)."""
    from algorithms import get_algorithm  # late: algorithms imports gpusim, not the reverse

    kernels = get_algorithm(algorithm).kernels(workload, schedule)
    chips = [k.on_chip() for k in kernels]
    big = max(chips, key=lambda c: c.smem_bytes)
    buffers = ", ".join(f"{n} {b} B" for n, b in big.smem_buffers_bytes.items())
    return big.smem_bytes, max(c.regs_per_thread for c in chips), buffers


def default_schedule(
    algorithm: str, workload: Workload, profile_smem_per_block_bytes: int
) -> Schedule:
    """The schedule used when the user gives no block sizes: the largest practical tile that fits.

    Blocks are powers of two in 16..128, no larger than needed for the sequence,
    with the algorithm's shared memory within ``profile_smem_per_block_bytes`` and
    its register estimate below the 255 cap (else the tile would spill; if every
    tile would, the largest that fits shared memory is taken anyway). Larger
    ``block_m x block_n`` wins, then the squarer tile, then larger ``block_m``.
    Warps 4, stages 2 (1 only if nothing fits with 2), split-q except flash1
    (split-k), residency registers.
    ``flash-naive-qkv`` always has ``block_m = 1`` (one query per CTA).
    """
    from algorithms import get_algorithm

    get_algorithm(algorithm)  # a one-line error for an unknown name
    split = "split-k" if algorithm == "flash1" else "split-q"
    ms = (1,) if algorithm == "flash-naive-qkv" else PRACTICAL_BLOCKS
    ms = tuple(b for b in ms if b <= covering_block(workload.seq_len_q))
    ns = tuple(b for b in PRACTICAL_BLOCKS if b <= covering_block(workload.seq_len_k))
    pairs = sorted(((m, n) for m in ms for n in ns), key=lambda p: tile_order(*p))
    spilling: Schedule | None = None
    smallest: tuple[int, str] | None = None
    for stages in RULE_STAGES:
        for bm, bn in pairs:
            s = Schedule(
                block_m=bm,
                block_n=bn,
                warps=RULE_WARPS,
                stages=stages,
                warp_split=split,
                residency="registers",
            )
            smem, regs, buffers = _footprint(algorithm, workload, s)
            if smem <= profile_smem_per_block_bytes:
                if regs < MAX_REGS_PER_THREAD:
                    return s
                spilling = spilling or s
            if smallest is None or smem < smallest[0]:
                smallest = (smem, buffers)
    if spilling is not None:
        return spilling
    assert smallest is not None
    raise GpusimError(
        f"no block size fits {algorithm} (head_dim {workload.head_dim}, {workload.dtype}, "
        f"Nk {workload.seq_len_k}) in {profile_smem_per_block_bytes} B of shared memory per CTA; "
        f"the smallest needs {smallest[0]} B ({smallest[1]})"
        + (STREAMED_ROW_HINT if "S_row" in smallest[1] else "")
    )
