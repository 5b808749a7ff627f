"""The online-softmax recurrences of the seeds, written once for every loop order.

Two forms of the same recurrence over K/V tiles, for a block of query rows with
running maximum ``m`` and denominator ``l``:

- *unnormalised* (FlashAttention-2, seed 000 ``flashattnV1_block``): the
  accumulator is ``sum_j exp(S_j - m) V_j``, divided by ``l`` once at the end;
- *normalised* (FlashAttention-1, seed 000 ``flashattn_naiveQKV``, seed 001
  with its erratum fixed): the output is kept divided by ``l`` after every step,
  ``O_new = (l * exp(m - m_new) * O + exp(S - m_new) V) / l_new``.

Rows that have seen no visible key keep ``m = -inf``, ``l = 0`` and a zero
output; the tile machine's exp and division rules keep them free of NaN.
"""

from __future__ import annotations

import math

from algorithms.tile_machine import Tile, TileMachine
from algorithms.tiling import needs_mask
from gpusim.workload import Workload


def scores(
    tm: TileMachine, w: Workload, q: Tile, k: Tile, q0: int, k0: int, bc: int, heads: int = 1
) -> Tile:
    """``S = Q K^T / sqrt(d)`` for tile (q0, k0), masked only where the tile needs it
    (``heads``: rows packed over that many heads, see :meth:`TileMachine.load`)."""
    s = tm.matmul(q, k, transpose_b=True, scale=1.0 / math.sqrt(w.head_dim))
    return tm.mask(s, q0, k0, heads=heads) if needs_mask(w, q0, k0, bc) else s


def unnormalised_update(
    tm: TileMachine, s: Tile, v: Tile, m: Tile, den: Tile, acc: Tile
) -> tuple[Tile, Tile, Tile]:
    """One FlashAttention-2 step: ``(m_new, l_new, acc_new)``, ``acc`` not divided by ``l``."""
    m_new = tm.maximum(m, tm.row_max(s))
    p = tm.exp_sub_rows(s, m_new)
    alpha = tm.exp_diff(m, m_new)
    l_new = tm.add(tm.scale_rows(den, alpha), tm.row_sum(p))
    acc_new = tm.matmul_acc(tm.scale_rows(acc, alpha), p, v)
    return m_new, l_new, acc_new


def normalised_update(
    tm: TileMachine, s: Tile, v: Tile, m: Tile, den: Tile, o: Tile
) -> tuple[Tile, Tile, Tile]:
    """One FlashAttention-1 step: ``(m_new, l_new, o_new)``, ``o`` already divided by ``l``."""
    m_new = tm.maximum(m, tm.row_max(s))
    p = tm.exp_sub_rows(s, m_new)
    l_alpha = tm.scale_rows(den, tm.exp_diff(m, m_new))  # l * exp(m - m_new)
    l_new = tm.add(l_alpha, tm.row_sum(p))
    o_new = tm.div_rows(tm.matmul_acc(tm.scale_rows(o, l_alpha), p, v), l_new)
    return m_new, l_new, o_new


def initial_state(tm: TileMachine, rows: int, head_dim: int) -> tuple[Tile, Tile, Tile]:
    """``(m, l, O) = (-inf, 0, 0)`` on chip: the state before the first K/V tile."""
    return tm.full(rows, None, -math.inf), tm.full(rows, None, 0.0), tm.full(rows, head_dim, 0.0)
