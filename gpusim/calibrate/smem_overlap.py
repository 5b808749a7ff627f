"""Shared-memory operand traffic against the tensor pipe and the softmax (kernels/smem_overlap.cu).

Not part of the profile suite: run on its own (``python -m gpusim.calibrate.smem_overlap
--out FILE``). For each loop (``NLD`` ldmatrix.x4 per warp-iteration, each feeding
``MMA_PER_LD`` mma.sync or none, ``NMMA_REG`` mma.sync on register operands, ``ROUNDS``
softmax passes, a barrier) and each launch shape (1, 2 and 4 warps per scheduler, in one
CTA or several), it records warp-iterations per SM clock and the SM clock. Which of the
three pipes' times add up and which overlap is what the engine's step rule needs
(tests/engine/test_smem_overlap_rule.py checks the rule against the recorded numbers).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.warp_loops import loop_rows

#: (NLD, MMA_PER_LD, NMMA_REG, ROUNDS) loops compiled by kernels/smem_overlap.cu
LOOPS = (
    (32, 0, 0, 0),  # ldmatrix alone: the shared-memory rate
    (0, 0, 0, 1),  # softmax alone
    (32, 0, 0, 1),  # ldmatrix and an independent softmax
    (0, 0, 64, 0),  # mma.sync alone
    (32, 0, 64, 0),  # ldmatrix and independent mma.sync
    (16, 4, 0, 0),  # ldmatrix feeding 4 mma.sync each (32 query rows per warp)
    (32, 2, 0, 0),  # ldmatrix feeding 2 each (16 rows per warp)
    (16, 4, 0, 1),  # ... and the softmax on the products
    (32, 2, 0, 1),
)
#: (threads per CTA, CTAs per SM): 1, 2, 4 warps per scheduler
SHAPES = ((128, 1), (256, 1), (512, 1), (128, 2), (128, 4))
#: Bytes one ldmatrix.x4 moves for a warp (32 lanes x 16 B).
LDSM_X4_BYTES = 512


def loop_name(nld: int, per_ld: int, nreg: int, rounds: int) -> str:
    """The template instance of one loop."""
    return f"smem_overlap<{nld},{per_ld},{nreg},{rounds}>"


def run(quick: bool = False) -> dict[str, Any]:
    """Every loop at every launch shape: warp-iterations per clock per SM, and the clock."""
    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    names = tuple(loop_name(*lp) for lp in LOOPS)
    mod = compile_module(cp, "smem_overlap.cu", names)
    threads_max = max(t * b for t, b in SHAPES) * ctx.sm_count
    vals = cp.random.uniform(0.25, 1.0, size=12 * max(threads_max, 4096), dtype=cp.float32)
    operands = vals.astype(cp.float16).view(cp.uint32)
    out = cp.full(threads_max, cp.nan, dtype=cp.float32)  # poisoned: every thread writes
    rows, kernels = [], {}
    for loop in LOOPS:
        nld, per_ld, nreg, rounds = loop
        name = loop_name(*loop)
        kernel = mod.get_function(name)
        kernels[name] = kernel_attributes(kernel)

        def args(iters: int, stamps: Any) -> tuple[Any, ...]:
            return (operands, np.int32(iters), np.uint32(0), out, stamps)

        params = {"nld": nld, "mma_per_ld": per_ld, "nmma_reg": nreg, "rounds": rounds}
        for row in loop_rows(ctx, kernel, name, params, SHAPES, args):
            per_clk = row["raw"]["per_clk_per_sm"]["median"]
            row["smem_bytes_per_clk_per_sm"] = per_clk * nld * LDSM_X4_BYTES
            rows.append(row)
    finite = bool(cp.isfinite(out[: ctx.sm_count * 128]).all())
    ctx.log(f"outputs finite (first launch shape's threads): {finite}")
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


#: The load-product-softmax loops whose launch shapes the engine's step efficiency takes.
STEP_LOOPS = ((16, 4, 0, 1), (32, 2, 0, 1))
#: One CTA per SM with 1, 2 and 4 warps per scheduler.
ONE_CTA_SHAPES = {1: (128, 1), 2: (256, 1), 4: (512, 1)}
#: Several CTAs of 4 warps against one CTA with the same warps: (CTAs, their shape, one CTA's).
CTA_SHAPES = {2: ((128, 2), (256, 1)), 4: ((128, 4), (512, 1))}
#: Per warp-iteration of a loop with a softmax: 32 values per thread through one EX2 each.
EX2_PER_WARP_ITER = 32 * 32
#: FLOPs of one mma.sync m16n8k16.
HMMA_FLOPS = 2 * 16 * 8 * 16
SCHEDULERS = 4


def rule_cycles(loop: tuple, profile: dict[str, Any]) -> float:
    """Cycles per warp-iteration per scheduler the engine's step rule gives ``loop`` at the
    profile's rates (a plain profile dict): the longer of its tensor and shared-memory times,
    then its softmax on the SFU."""
    nld, per_ld, nreg, rounds = loop

    def per_sched(field: str, *sub: str) -> float:
        node = profile[field]
        for k in sub:
            node = node[k]
        return float(node["value"]) / SCHEDULERS

    tensor = (nld * per_ld + nreg) * HMMA_FLOPS / per_sched("mma_sync_flops_per_clk_per_sm", "fp16")
    smem = nld * LDSM_X4_BYTES / per_sched("smem_bandwidth_bytes_per_clk_per_sm")
    softmax = rounds * EX2_PER_WARP_ITER / per_sched("sfu_exp_per_clk_per_sm")
    return max(tensor, smem) + softmax


def profile_entries(record: dict[str, Any], profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The step efficiencies of one CTA and the gain of several, from a recorded run.

    ``step_efficiency_{1,2,4}_warp(s)_per_scheduler``: per loop, the step rule's cycles at
    ``profile``'s rates (:func:`rule_cycles`) over the measured cycles per warp-iteration
    of one CTA with that many warps per scheduler; the mean over the loops (a load feeding
    4 products, and one feeding 2). Within one CTA the barrier keeps the warps in the same
    phase, so these measure the latency its warps leave exposed.
    ``cta_overlap_gain_{2,4}_ctas``: per loop, the cycles per warp-iteration of one CTA over
    those of 2 (4) CTAs of 4 warps with as many warps in all; their mean. Independent CTAs
    drift apart, so one's softmax runs beside another's loads and products.
    """
    per_warp: dict[tuple, float] = {}
    for r in record["rows"]:
        key = (r["nld"], r["mma_per_ld"], r["nmma_reg"], r["rounds"], r["threads"],
               r["ctas_per_sm"])  # fmt: skip
        per_warp[key] = r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
    source = (
        f"measured on {record['gpu']}, {record['date']}, python -m gpusim.calibrate.smem_overlap"
    )
    loops = "for ldmatrix feeding 4 (2) mma.sync then a softmax pass; their mean"
    out = {}
    for warps, shape in ONE_CTA_SHAPES.items():
        ratios = [rule_cycles(lp, profile) / per_warp[(*lp, *shape)] for lp in STEP_LOOPS]
        field = f"step_efficiency_{warps}_warp{'s' if warps > 1 else ''}_per_scheduler"
        out[field] = {
            "value": round(sum(ratios) / len(ratios), 3),
            "source": source,
            "note": (
                f"the step rule's cycles at this profile's rates over those measured with one "
                f"CTA of {4 * warps} warps: " + ", ".join(f"{x:.3f}" for x in ratios) + " " + loops
            ),
        }
    for ctas, (many, one) in CTA_SHAPES.items():
        ratios = [per_warp[(*lp, *one)] / per_warp[(*lp, *many)] for lp in STEP_LOOPS]
        out[f"cta_overlap_gain_{ctas}_ctas"] = {
            "value": round(sum(ratios) / len(ratios), 3),
            "source": source,
            "note": (
                f"cycles per warp-iteration of one CTA of {4 * ctas} warps over those of "
                f"{ctas} CTAs of 4 warps: " + ", ".join(f"{x:.3f}" for x in ratios) + " " + loops
            ),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
