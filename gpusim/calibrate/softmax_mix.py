"""Whether the gain of co-resident CTAs depends on what bounds the softmax (kernels/softmax_mix.cu).

Not part of the profile suite: run on its own (``python -m gpusim.calibrate.softmax_mix
--out FILE``). The two load-product-softmax loops of ``smem_overlap`` with ``EXTRA`` (0, 4,
8) more dependent FFMAs on each exponential of the softmax pass: from a pass bound by the
MUFU pipe to one bound by the issue slots, as the attention kernels' is. At the launch
shapes of ``smem_overlap`` (1, 2 and 4 warps per scheduler, in one CTA or CTAs of 4
warps), it records warp-iterations per SM clock and the SM clock. With ``EXTRA`` 0 the
loops are those ``smem_overlap`` recorded (the same source, ``step_loop.cuh``).
"""

from __future__ import annotations

from typing import Any

from gpusim.calibrate import standalone
from gpusim.calibrate.warp_loops import run_step_loop_variant

#: dependent FFMAs added per exponential
EXTRA = (0, 4, 8)


def run(quick: bool = False) -> dict[str, Any]:
    """Every loop and softmax mix at every launch shape: warp-iterations per clock."""
    return run_step_loop_variant(quick, "softmax_mix", "extra", EXTRA)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
