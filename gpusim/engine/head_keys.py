"""The L2's name for a tile of a kernel whose CTA reads several batch-heads of one tensor.

The engine names a CTA's tile in the L2 by its tensor, the CTA's batch-head and its rows. A
kernel that sums a tensor over the query heads of a GQA group (flash2's backward's group sum:
each CTA of a K/V head reads ``dKexp`` and ``dVexp`` of its G query heads; standard
attention's backward with grouped heads likewise) reads G tiles with the same rows, one per
head: named by the CTA's batch-head alone they were one tile, so the L2 served G - 1 of every
G reads (the group sum's DRAM reads were 1/G of its reads however large the tensors). Such a
kernel says which tensors it reads at several batch-heads (:meth:`algorithms.base.Kernel.
bh_scale`: the tensor's batch-head is the CTA's times the scale, plus the step's offset), and
each becomes one tile per batch-head, named by the tensor's own batch-head, so that the L2
also meets the tiles the previous kernel wrote there.

A counting fix found on 2026-12-07 (per-kernel times of held-out set 41's PyTorch runs:
PyTorch's group sums take about twice the model's); ``head_keys(False)`` names tiles as
before, for the held-out sets whose predictions were made so.
"""

from __future__ import annotations

from gpusim.mechanism import Mechanism

HEAD_KEYS = Mechanism(True)


def head_keys(on: bool):
    """The engine with (``on``) or without the per-batch-head tile names, for a block."""
    return HEAD_KEYS.setting(on)


def head_scales(kernel) -> dict[str, int]:
    """``kernel``'s tensors read at several batch-heads by one CTA, and their scale (empty
    where this fix is off)."""
    return kernel.bh_scale() if HEAD_KEYS.on else {}
