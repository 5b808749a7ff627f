"""Chunks of a CTA's steps: aligned to the walk, so that CTAs starting at different blocks
name the same tiles alike (the L2's keys)."""

from __future__ import annotations

import pytest

from algorithms import get_algorithm
from algorithms.tracing import trace_cta
from gpusim.api import simulate
from gpusim.engine.chunks import lead, merge, runs, slices
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

CAUSAL = Workload(batch=1, heads=2, seq_len_q=8192, seq_len_k=8192, head_dim=64, dtype="bf16",
                  causal=True)  # fmt: skip


def _kernel(kv_order: str):
    s = Schedule(block_m=128, block_n=64, warps=4, stages=2, kv_order=kv_order)
    return get_algorithm("flash2").kernels(CAUSAL, s)[0]


def _k_names(kernel, block: int, k: int) -> list[tuple[int, int]]:
    """(first row, bytes) of each chunk's K tile in the walk of CTA ``block``."""
    walk = max(runs(trace_cta(kernel, 0, block).steps), key=len)
    out = []
    for pieces in slices(walk, k, lead(walk, k)):
        (ref,) = [r for r in merge(pieces, True, {}, {}) if r.tensor == "K"]
        out.append((ref.row0, ref.nbytes))
    return out


@pytest.mark.parametrize("kv_order", ["forward", "backward"])
def test_chunks_of_ctas_with_other_diagonals_cover_the_same_tiles(kv_order):
    kernel, k = _kernel(kv_order), 8
    tile = 64 * 64 * 2
    for block in (5, 6, 11, 40):
        names = _k_names(kernel, block, k)
        blocks = 2 * (block + 1)  # Br = 2 Bc: the K/V blocks this CTA sees
        assert sum(n for _, n in names) == blocks * tile
        # every chunk starts on a multiple of k blocks; only the one at the diagonal is short
        assert all(row % (k * 64) == 0 for row, _ in names)
        full = [n for _, n in names if n == k * tile]
        assert len(full) == blocks // k


def test_lead_of_a_backward_walk_ends_its_first_chunk_on_a_boundary():
    walk = max(runs(trace_cta(_kernel("backward"), 0, 5).steps), key=len)
    assert lead(walk, 8) == 12 % 8  # blocks 11..8, then 7..0
    walk = max(runs(trace_cta(_kernel("forward"), 0, 5).steps), key=len)
    assert lead(walk, 8) == 8  # from block 0: already aligned


def test_backward_walks_meet_the_l2_as_forward_walks_do():
    # Before the alignment every chunk of a backward walk had a name of its own and every
    # K/V read past the first chunk missed (103 GB of DRAM reads at 128k, d64, 6 heads).
    p = load_profile("h200-sxm")
    w = CAUSAL.model_copy(update={"seq_len_q": 16384, "seq_len_k": 16384})
    got = {}
    for order in ("forward", "backward"):
        s = Schedule(block_m=128, block_n=64, warps=4, stages=2, kv_order=order)
        got[order] = simulate("flash2", w, s, p).dram_read_bytes
    assert got["backward"] == pytest.approx(got["forward"], rel=0.02)
