"""Seed 000's swapped order ``flashattn_naiveKVQ``: keys outer, queries inner, m/l/o in HBM.

The seed walks one key at a time against every query, keeping each query's
``m``, ``l`` and normalised ``o`` in HBM (initialised there) and reading and
writing them at every step. Here the granularity is ``block_n`` keys by
``block_m`` queries (``1 x 1`` is the seed's), so large workloads stay
traceable. Erratum fixed: the seed's update uses ``l0[k]`` where the previous
output ``o0[k]`` is meant; the correct update is
``o_new = (o·l·exp(m - m_new) + exp(x - m_new)·v) / l_new``.

Three kernels: initialise the state in HBM (one CTA per Q block), the main
loop (:mod:`algorithms.kv_outer`, one CTA per (batch, head), state read even on
the first visit, as the seed does), and a copy of ``o`` to ``O`` in the storage
type (the seed's ``O[batch] = o0``).

Global traffic per (batch, head), ``e`` bytes per element, ``Tc = ceil(Nk/Bc)``,
without causal (with causal, ``Tc·Nq`` becomes the rows of the visited tiles):

- init: write ``m``, ``l`` ``Nq·4`` each, ``Oacc`` ``Nq·d·4``;
- main: read ``K``, ``V`` ``Nk·d·e`` each, ``Q`` ``Tc·Nq·d·e``; read and write
  ``Oacc`` ``Tc·Nq·d·4`` and ``m``, ``l`` ``Tc·Nq·4`` each;
- copy: read ``Oacc`` ``Nq·d·4``; write ``O`` ``Nq·d·e``.

The seed's per-unit count ``2d + N·d + 2N`` leaves out the traffic of ``o``.
"""

from __future__ import annotations

from algorithms.base import Algorithm, Kernel
from algorithms.kv_outer import CopyKernel, InitStateKernel, KVOuterKernel
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class NaiveKVQKernel(KVOuterKernel):
    """The main kernel: normalised state read from HBM at every step, the first included."""

    normalised = True
    reads_initial_state = True
    writes_output = False


class FlashNaiveKVQ(Algorithm):
    """Seed 000's naive K/V-outer order with the state in HBM."""

    name = "flash-naive-kvq"
    supports_gqa = True  # its kernels read K and V at the query head's K/V head
    description = (
        "the swapped order: one key/value at a time against every query, "
        "m/l/o kept in HBM (seed 000)"
    )

    def kernels(self, workload: Workload, schedule: Schedule) -> list[Kernel]:
        br = schedule.block_m
        return [
            InitStateKernel("init_state", workload, schedule, {"m": br, "l": br, "Oacc": br}),
            NaiveKVQKernel("naive_kvq", workload, schedule),
            CopyKernel("copy_out", workload, schedule, {"Oacc": br, "O": br}),
        ]
