"""The FA2 recurrence in the K/V-outer order, state in HBM (seed 000 ``flashattnV2_blockKVQ``).

The main kernel (see :mod:`algorithms.kv_outer`) keeps the unnormalised
accumulator ``Oacc``, ``m`` and ``l`` in HBM (fp32), reading and writing them
at every (K/V tile, Q block) step after the first; a second kernel divides
``Oacc`` by ``l`` and writes ``O`` (rows that see no key get zeros). The seed
runs its loops for one (batch) at a time; here one CTA per (batch, head).

Global traffic per (batch, head), ``e`` bytes per element, ``Tr = ceil(Nq/Br)``,
``Tc = ceil(Nk/Bc)``, without causal (with causal, ``Tc·Nq`` becomes the rows
of the visited tiles):

- main: read ``K``, ``V`` ``Nk·d·e`` each, ``Q`` ``Tc·Nq·d·e``, ``Oacc``
  ``(Tc-1)·Nq·d·4``, ``m``, ``l`` ``(Tc-1)·Nq·4`` each; write ``Oacc``
  ``Tc·Nq·d·4``, ``m``, ``l`` ``Tc·Nq·4`` each;
- final: read ``Oacc`` ``Nq·d·4``, ``l`` ``Nq·4``; write ``O`` ``Nq·d·e``.
"""

from __future__ import annotations

from algorithms.base import Algorithm, Kernel
from algorithms.kv_outer import FinalizeKernel, KVOuterKernel
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class Flash2KVQKernel(KVOuterKernel):
    """The main kernel: unnormalised state, every step writes it back to HBM."""

    normalised = False
    reads_initial_state = False
    writes_output = False


class Flash2KVQ(Algorithm):
    """FlashAttention-2 recurrence, K/V outer and Q inner, state in HBM, final normalisation."""

    name = "flash2-kvq"
    supports_gqa = True  # its kernels read K and V at the query head's K/V head
    description = (
        "the seed's K/V-outer variant of the FA2 recurrence with state in HBM "
        "(seed 000 flashattnV2_blockKVQ)"
    )

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        own = {"Oacc": schedule.block_m, "l": schedule.block_m, "O": schedule.block_m}
        return [
            Flash2KVQKernel("flash2_kvq_fwd", workload, schedule),
            FinalizeKernel("normalise", workload, schedule, own),
        ]
