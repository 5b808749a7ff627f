"""Tile geometry: visited tiles are exactly those with a visible pair; masks where needed."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from algorithms.tiling import (
    first_masked_tile,
    kv_tile_runs,
    needs_mask,
    q_blocks,
    q_blocks_visiting,
    visible_kv_blocks,
    visible_tiles,
    visits_per_q_block,
)
from gpusim.workload import Workload

shapes = st.fixed_dictionaries(
    {
        "nq": st.integers(1, 80),
        "nk": st.integers(1, 80),
        "br": st.integers(1, 33),
        "bc": st.integers(1, 33),
        "causal": st.booleans(),
    }
)


def _visible(w):
    i = np.arange(w.seq_len_q)[:, None]
    j = np.arange(w.seq_len_k)[None, :]
    vis = np.ones((w.seq_len_q, w.seq_len_k), bool)
    return vis & (j <= i + w.causal_offset) if w.causal else vis


@given(shapes)
def test_visited_tiles_are_a_prefix_covering_every_visible_pair(p):
    w = Workload(seq_len_q=p["nq"], seq_len_k=p["nk"], causal=p["causal"])
    br, bc = p["br"], p["bc"]
    vis = _visible(w)
    for i in range(q_blocks(w, br)):
        q0 = i * br
        n = visible_kv_blocks(w, q0, br, bc)
        has = [vis[q0 : q0 + br, j : j + bc].any() for j in range(0, w.seq_len_k, bc)]
        assert n == (max(j for j, h in enumerate(has) if h) + 1 if any(has) else 0)
        for j in range(n):
            # Masked iff the tile runs past the keys or hides a pair from a real row
            # (rows past Nq are padding and do not matter).
            tile = vis[q0 : q0 + br, j * bc : (j + 1) * bc]
            expected = (j + 1) * bc > w.seq_len_k or not tile.all()
            assert needs_mask(w, q0, j * bc, bc) == expected
        brute = next((j for j in range(n) if needs_mask(w, q0, j * bc, bc)), n)
        assert first_masked_tile(w, q0, bc, n) == brute


@given(shapes)
def test_kv_outer_visits_are_the_transpose(p):
    w = Workload(seq_len_q=p["nq"], seq_len_k=p["nk"], causal=p["causal"])
    visits = visits_per_q_block(w, p["br"], p["bc"])
    pairs = {(i, j) for i, n in enumerate(visits) for j in range(n)}
    by_kv = {(i, j) for j in range(max(visits, default=0)) for i in q_blocks_visiting(visits, j)}
    assert pairs == by_kv
    assert visible_tiles(w, p["br"], p["bc"]) == len(pairs)


@given(shapes)
def test_kv_tile_runs_are_the_maximal_runs_of_alike_steps(p):
    w = Workload(seq_len_q=p["nq"], seq_len_k=p["nk"], causal=p["causal"])
    br, bc = p["br"], p["bc"]
    visits = visits_per_q_block(w, br, bc)
    for j in range(max(visits, default=0)):

        def kind(i, j=j):
            ragged = i * br + br > w.seq_len_q
            return needs_mask(w, i * br, j * bc, bc), j == visits[i] - 1, ragged

        brute: list[list[int]] = []
        for i in q_blocks_visiting(visits, j):
            if not brute or kind(i) != kind(brute[-1][0]):
                brute.append([])
            brute[-1].append(i)
        assert [list(r) for r in kv_tile_runs(w, visits, j, br, bc)] == brute
    assert kv_tile_runs(w, visits, max(visits, default=0), br, bc) == []  # past every visit
