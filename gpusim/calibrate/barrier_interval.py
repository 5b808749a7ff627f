"""How much of a step loop's slowdown with few warps is its barrier (kernels/barrier_interval.cu).

Not part of the profile suite: run on its own (``python -m gpusim.calibrate.barrier_interval
--out FILE``). The two load-product-softmax loops of ``smem_overlap`` (16 ldmatrix.x4 each
feeding 4 mma.sync, or 32 feeding 2, then a softmax pass) with a barrier after every
``SYNC_EVERY``-th iteration (1, 2, 4, 16; 0: none), at the launch shapes of
``smem_overlap`` (1, 2 and 4 warps per scheduler, in one CTA or CTAs of 4 warps). It
records warp-iterations per SM clock and the SM clock. With a barrier every iteration the
loops are those ``smem_overlap`` recorded (the same source, ``step_loop.cuh``).
"""

from __future__ import annotations

from typing import Any

from gpusim.calibrate import standalone
from gpusim.calibrate.warp_loops import run_step_loop_variant

#: iterations per barrier (0: no barrier in the loop)
SYNC_EVERY = (1, 2, 4, 16, 0)


def run(quick: bool = False) -> dict[str, Any]:
    """Every loop and barrier interval at every launch shape: warp-iterations per clock."""
    return run_step_loop_variant(quick, "barrier_interval", "sync_every", SYNC_EVERY)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
