"""A load's latency runs under the memory system's queue, not before it.

A CTA's load waits the memory latency and moves its bytes at its share of the L2's and
DRAM's bandwidth. Taken one after the other, the latency leaves the lanes idle whenever the
CTAs that share them issue together, as a wave's CTAs do: in a DRAM-bound decode the
engine's DRAM lane then dips to about half its rate once a step. The memory system pipelines
requests: while the requests of one load wait their latency, those issued before them
stream. ``dram_read`` measured that (``data/h200/2026-12-04_calibration_dram_read``, no
attention kernel): tile copies into shared memory read DRAM at 4.51-4.57 TB/s with 2, 3 or 4
stages and 16- or 32-KiB tiles, one or two CTAs per SM, where latency then transfer would
give each its own rate (32-KiB tiles, 2 stages, one CTA per SM: 0.33 us + 0.95 us a step,
3.4 TB/s). With this mechanism on, a load takes the longer of its latency and its transfer
(:meth:`gpusim.engine.cta_group.CtaGroup` starts the two together); judged on held-out set
12 (``reports/load_latency_heldout12``).
"""

from __future__ import annotations

from gpusim.mechanism import Mechanism

#: adopted on held-out set 12 (reports/load_latency_heldout12)
UNDER_QUEUE = Mechanism(True)


def under_queue() -> bool:
    """Whether a load's latency overlaps its transfer (the mechanism is on)."""
    return UNDER_QUEUE.on


def latency_under_queue(on: bool):
    """The engine with (``on``) or without this mechanism, for the held-out set that judges
    it against the engine without it and the tests that recompute both."""
    return UNDER_QUEUE.setting(on)


def load_time(latency: float, transfer: float) -> float:
    """A load's time from its latency and its transfer, with the mechanism on or off."""
    return max(latency, transfer) if UNDER_QUEUE.on else latency + transfer
