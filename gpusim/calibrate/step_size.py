"""Does the pipe model's step rule hold at every step size? (kernels/step_size.cu)

    python -m gpusim.calibrate.step_size --out FILE          # on the GPU
    python -m gpusim.calibrate.step_size --table FILE [--profile NAME]

The two load-product-softmax loops of ``smem_overlap`` (ldmatrix.x4 each feeding 4 or 2
mma.sync, one softmax pass over the accumulators, a barrier) with their products and softmax
scaled together: 4, 8 or 16 accumulators a thread, as a FlashAttention-2 warp's S fragments
hold for 32, 64 or 128 keys a step; 8 is the loop ``smem_overlap`` records and the profile's
step efficiencies come from. No attention kernel's code. At the launch shapes of
``smem_overlap`` it records cycles per warp-iteration per scheduler and the SM clock.

The pipe model times a step as its products' phase (the longer of tensor and shared-memory
time) then its softmax phase, at a step efficiency that depends on the warps per scheduler
only (:func:`gpusim.engine.rates.step_efficiency`). ``--table`` prints, per loop and launch
shape, the measured cycles over that rule's at each size, and each size's over the size-8
loop's: where they differ from 1, the step's size moves its efficiency, which the rule does
not say.
"""

from __future__ import annotations

import sys
from typing import Any

from gpusim.calibrate import standalone
from gpusim.calibrate.smem_overlap import LDSM_X4_BYTES
from gpusim.calibrate.warp_loops import SHAPES

#: (ldmatrix.x4 per warp-iteration, mma.sync fed by each, accumulators): both loops of
#: smem_overlap at 4, 8 and 16 accumulators (8: smem_overlap's own loops)
LOOPS = tuple(
    (nld * acc // 8, per_ld, acc) for nld, per_ld in ((16, 4), (32, 2)) for acc in (4, 8, 16)
)
HMMA_FLOPS = 2 * 16 * 8 * 16
#: floats per accumulator, lanes per warp: the softmax pass's exponentials per warp-iteration
FLOATS_PER_ACC, LANES = 4, 32


def loop_name(nld: int, per_ld: int, acc: int) -> str:
    return f"step_size<{nld},{per_ld},{acc}>"


def run(quick: bool = False, loops=LOOPS, shapes=SHAPES) -> dict[str, Any]:
    """Every loop at every launch shape (``quick`` changes only the timing's repeats)."""
    from gpusim.calibrate.context import import_cupy, make_context
    from gpusim.calibrate.warp_loops import time_loops

    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    named = [(loop_name(*lp), {"nld": lp[0], "mma_per_ld": lp[1], "acc": lp[2]}) for lp in loops]
    rows, kernels = time_loops(cp, ctx, "step_size.cu", named, shapes)
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


def rule_cycles(nld: int, per_ld: int, acc: int, profile) -> float:
    """Cycles per warp-iteration per scheduler by the pipe model's step rule at full rates:
    max(tensor, shared memory) then the softmax's exponentials on the SFU."""
    sched = profile.warp_schedulers_per_sm.value
    tensor = nld * per_ld * HMMA_FLOPS / (profile.mma_sync_flops_per_clk_per_sm.fp16.value / sched)
    smem = nld * LDSM_X4_BYTES / (profile.smem_bandwidth_bytes_per_clk_per_sm.value / sched)
    softmax = acc * FLOATS_PER_ACC * LANES / (profile.sfu_exp_per_clk_per_sm.value / sched)
    return max(tensor, smem) + softmax


def table(record: dict[str, Any], profile) -> list[dict[str, Any]]:
    """Per loop, size and launch shape: measured cycles per warp-iteration, the rule's, their
    ratio, and that ratio over the size-8 loop's at the same shape."""
    per_warp = {
        (r["nld"], r["mma_per_ld"], r["acc"], r["threads"], r["ctas_per_sm"]):
        r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
        for r in record["rows"]
    }  # fmt: skip
    out = []
    for nld, per_ld, acc in LOOPS:
        ref = next(lp for lp in LOOPS if lp[1] == per_ld and lp[2] == 8)
        for threads, ctas in SHAPES:
            got = per_warp.get((nld, per_ld, acc, threads, ctas))
            base = per_warp.get((*ref, threads, ctas))
            if got is None or base is None:
                continue
            ratio = got / rule_cycles(nld, per_ld, acc, profile)
            ratio8 = base / rule_cycles(*ref, profile)
            out.append({"nld": nld, "mma_per_ld": per_ld, "acc": acc, "threads": threads,
                        "ctas_per_sm": ctas, "measured_cycles": got,
                        "over_rule": ratio, "over_size_8": ratio / ratio8})  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (``--out``), or print the table of a record (``--table``)."""
    argv = sys.argv[1:] if argv is None else argv
    if "--table" not in argv:
        return standalone.main(__doc__, run, argv)
    rows = standalone.table_rows(__doc__, "step_size", table, argv)
    if rows is None:
        return 2
    print("loop (ldsm, mma/ld, acc) | threads x CTAs | cycles | over rule | over size 8")
    for r in rows:
        print(f"({r['nld']:2d}, {r['mma_per_ld']}, {r['acc']:2d}) | {r['threads']:3d} x "
              f"{r['ctas_per_sm']} | {r['measured_cycles']:7.1f} | {r['over_rule']:.3f} | "
              f"{r['over_size_8']:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
