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
from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.smem_overlap import SHAPES
from gpusim.calibrate.warp_loops import step_loop_variant_loops, time_loops

#: iterations per barrier (0: no barrier in the loop)
SYNC_EVERY = (1, 2, 4, 16, 0)


def run(quick: bool = False) -> dict[str, Any]:
    """Every loop and barrier interval at every launch shape: warp-iterations per clock."""
    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    loops = step_loop_variant_loops("barrier_interval", "sync_every", SYNC_EVERY)
    rows, kernels = time_loops(cp, ctx, "barrier_interval.cu", loops, SHAPES)
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
