"""One launch of every cta_phase loop at 1, 2 and 4 CTAs per SM, for Nsight Compute.

    ncu --kernel-name regex:cta_phase ... python3 -m gpusim.calibrate.cta_phase_ncu

(gpusim/validation/run_cta_phase_ncu_device.sh): the loops of kernels/cta_phase.cu (no
attention code), CTAs of 4 warps all entering together, so that ncu's stall reasons and pipe
counts at 1, 2 and 4 warps per scheduler can be set beside the SM core model's replay.
"""

from __future__ import annotations

from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.cta_phase import _launch, module_and_buffers

#: CTAs per SM the Nsight Compute pass launches each loop at (4 warps per CTA: 1, 2 and 4
#: warps per scheduler), all entering together
NCU_CTAS = (1, 2, 4)
NCU_ITERS = 2000


def ncu_launches() -> list[str]:
    """One launch of every loop at each of :data:`NCU_CTAS`; the launches in order."""
    ctx = make_context(import_cupy())
    names, mod, bufs = module_and_buffers(ctx, max(NCU_CTAS))
    done = []
    for name in names:
        for ctas in NCU_CTAS:
            _launch(ctx, mod.get_function(name), bufs, ctas, NCU_ITERS, 0)
            done.append(f"{name} x{ctas}")
            print(f"launched {done[-1]}", flush=True)
    return done


def main() -> int:
    ncu_launches()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
