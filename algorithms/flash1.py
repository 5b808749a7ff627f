"""FlashAttention-1: K/V-block outer loop, Q-block inner loop, O/l/m read and written in HBM.

The FlashAttention paper's Algorithm 1 and seed 001's forward pseudocode, with
seed 001's erratum fixed (``O_new = (l·exp(m - m_new)·O + P̃ V) / l_new`` where
``P̃ = exp(S - m_new)``; the seed divides and multiplies in the wrong places).
Grid: one CTA per (batch, head) (see :mod:`algorithms.kv_outer` for why); warps
split the K/V tile (``split-k``) as FlashAttention-1 does. The first K/V tile a
Q block meets starts from ``m = -inf, l = 0, O = 0`` on chip rather than reading
HBM; between visits O is kept, normalised, in an fp32 accumulator ``Oacc``, and
the last visit writes ``O`` in the storage type (FlashAttention-1's CUDA code
does the same with its fp32 temporary output). Causal: (Q block, K/V block)
pairs entirely above the diagonal are skipped, the diagonal band is masked;
Q blocks that see no key get a zero ``O`` written without any compute.

Global traffic per (batch, head), ``e`` bytes per element, ``Tc = ceil(Nk/Bc)``,
without causal (with causal, ``Tc·Nq`` becomes the rows of the visited tiles):

- read: ``K``, ``V``: ``Nk·d·e`` each (once); ``Q``: ``Tc·Nq·d·e``;
  ``Oacc``: ``(Tc-1)·Nq·d·4``; ``m``, ``l``: ``(Tc-1)·Nq·4`` each;
- written: ``Oacc``: ``(Tc-1)·Nq·d·4``; ``O``: ``Nq·d·e``; ``m``, ``l``: ``Tc·Nq·4`` each.

So Q, O, m and l move once per K/V tile, K and V once (seed 001's "K, V read
Tr times" is the Q-outer order's figure: its erratum).
"""

from __future__ import annotations

from algorithms.base import Algorithm, Kernel
from algorithms.kv_outer import KVOuterKernel
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class Flash1Kernel(KVOuterKernel):
    """The single kernel: normalised state, O written at each Q block's last visit."""

    normalised = True
    reads_initial_state = False
    writes_output = True


class Flash1(Algorithm):
    """FlashAttention-1 forward (K/V-outer, normalised state in HBM)."""

    name = "flash1"
    supports_gqa = True  # its kernels read K and V at the query head's K/V head
    description = (
        "tiled, K/V-block outer loop, Q-block inner loop, O/l/m read and written in HBM "
        "each step (FlashAttention-1; seed 001 forward pseudocode)"
    )

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        return [Flash1Kernel("flash1_fwd", workload, schedule)]
