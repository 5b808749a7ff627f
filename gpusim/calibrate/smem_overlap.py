"""Shared-memory operand traffic against the tensor pipe and the softmax (kernels/smem_overlap.cu).

``gpusim calibrate`` runs it as its ``smem_overlap`` benchmark (``--quick``: only the
:data:`STEP_LOOPS` the step efficiencies need, and the :data:`RELEASE_LOOPS` at the launch
shapes the shared-memory release reads); on its own: ``python -m gpusim.calibrate.smem_overlap
--out FILE``. For each loop (``NLD`` ldmatrix.x4 per warp-iteration, each feeding
``MMA_PER_LD`` mma.sync or none, ``NMMA_REG`` mma.sync on register operands, ``ROUNDS``
softmax passes, a barrier) and each launch shape (1, 2 and 4 warps per scheduler, in one
CTA or several), it records warp-iterations per SM clock and the SM clock. Which of the
three pipes' times add up and which overlap is what the engine's step rule needs
(tests/engine/test_smem_overlap_rule.py checks the rule against the recorded numbers).
"""

from __future__ import annotations

from typing import Any

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.warp_loops import SHAPES, time_loops

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
#: The load-product-softmax loops whose slowdown with few warps the engine uses.
STEP_LOOPS = ((16, 4, 0, 1), (32, 2, 0, 1))
#: Bytes one ldmatrix.x4 moves for a warp (32 lanes x 16 B).
LDSM_X4_BYTES = 512
#: ldmatrix alone, the softmax alone, both (independent) in one loop; several CTAs of 4 warps:
#: what the shared-memory release (gpusim.engine.smem_release) is read from
RELEASE_LOOPS = ((32, 0, 0, 0), (0, 0, 0, 1), (32, 0, 0, 1))
RELEASE_SHAPES = ((128, 2), (128, 4))
RELEASE_FIELD = "smem_sched_release_share"
MODULE = "python -m gpusim.calibrate.smem_overlap"


def loop_name(nld: int, per_ld: int, nreg: int, rounds: int) -> str:
    """The template instance of one loop."""
    return f"smem_overlap<{nld},{per_ld},{nreg},{rounds}>"


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0 (``--quick``: the suite's quick variant)."""
    return measure(make_context(import_cupy(), quick=quick))


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every loop at every launch shape: warp-iterations per clock per SM, and the clock."""
    cp = ctx.cp

    def named(lps: tuple) -> list:
        keys = ("nld", "mma_per_ld", "nmma_reg", "rounds")
        return [(loop_name(*lp), dict(zip(keys, lp, strict=True))) for lp in lps]

    # Quick: only the loops the profile's step efficiencies come from, at every shape.

    rows, kernels = time_loops(
        cp, ctx, "smem_overlap.cu", named(STEP_LOOPS if ctx.quick else LOOPS), SHAPES
    )
    if ctx.quick:  # the shared-memory release's loops at the launch shapes it reads
        more, more_kernels = time_loops(
            cp, ctx, "smem_overlap.cu", named(RELEASE_LOOPS), RELEASE_SHAPES
        )
        rows, kernels = rows + more, kernels | more_kernels
    for row in rows:
        per_clk = row["raw"]["per_clk_per_sm"]["median"]
        row["smem_bytes_per_clk_per_sm"] = per_clk * row["nld"] * LDSM_X4_BYTES
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


#: Launch shapes (threads, CTAs per SM) by warps per scheduler.
SHAPES_BY_WARPS = {1: ((128, 1),), 2: ((256, 1), (128, 2)), 4: ((512, 1), (128, 4))}


def cycles_per_warp(record: dict[str, Any]) -> dict[tuple, float]:
    """Cycles per warp-iteration of a recorded run's rows, keyed by the loop's parameters
    (nld, mma_per_ld, nmma_reg, rounds) and the launch shape (threads, CTAs per SM)."""
    keys = ("nld", "mma_per_ld", "nmma_reg", "rounds", "threads", "ctas_per_sm")
    return {tuple(r[k] for k in keys): r["cycles_per_iteration_per_scheduler"]
            / r["warps_per_scheduler"] for r in record["rows"]}  # fmt: skip


def profile_entries(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``step_efficiency_{1,2}_warp(s)_per_scheduler`` from a recorded run.

    Per loop, the cycles per warp-iteration with 4 warps per scheduler over those with 1
    (2), each the mean over the launch shapes with that many; then the mean over the
    loops (a load feeding 4 products, and one feeding 2).
    """
    per_warp = cycles_per_warp(record)

    def mean_cycles(loop: tuple, warps: int) -> float:
        vals = [per_warp[(*loop, t, b)] for t, b in SHAPES_BY_WARPS[warps]]
        return sum(vals) / len(vals)

    out = {}
    if all((*lp, *sh) in per_warp for lp in RELEASE_LOOPS for sh in RELEASE_SHAPES):
        out[RELEASE_FIELD] = release_entry(record)
    for warps, field in ((1, "step_efficiency_1_warp_per_scheduler"),
                         (2, "step_efficiency_2_warps_per_scheduler")):  # fmt: skip
        ratios = [mean_cycles(lp, 4) / mean_cycles(lp, warps) for lp in STEP_LOOPS]
        out[field] = {
            "value": round(sum(ratios) / len(ratios), 3),
            "source": (
                f"measured on {record['gpu']}, {record['date']}, "
                "python -m gpusim.calibrate.smem_overlap"
            ),
            "note": (
                f"cycles per warp-iteration with 4 warps per scheduler over {warps}: "
                + ", ".join(f"{x:.3f}" for x in ratios)
                + " for ldmatrix feeding 4 (2) mma.sync then a softmax pass; their mean"
            ),
        }
    return out


def release_entry(record: dict[str, Any]) -> dict[str, Any]:
    """``smem_sched_release_share`` (:mod:`gpusim.engine.smem_release`) from a recorded run.

    Per launch shape of several CTAs: ldmatrix alone L, the softmax alone S and both B in
    cycles per warp-iteration; with the loads holding the schedulers for 1 - k of their time
    and the softmax for all of its own, B = (1 - k) L + S, so k = 1 - (B - S) / L. The mean
    over two and four CTAs of 4 warps."""
    per_warp = cycles_per_warp(record)
    ks = []
    for shape in RELEASE_SHAPES:
        ld, soft, both = (per_warp[(*lp, *shape)] for lp in RELEASE_LOOPS)
        ks.append(1.0 - (both - soft) / ld)
    return {
        "value": round(sum(ks) / len(ks), 3),
        "source": f"measured on {record['gpu']}, {record['date']}, {MODULE}",
        "note": (
            "1 - (both - softmax) / ldmatrix, cycles per warp-iteration of ldmatrix and an "
            "independent softmax in 2 and 4 CTAs of 4 warps: "
            + ", ".join(f"{k:.3f}" for k in ks)
            + "; their mean"
        ),
    }


def apply_release(profile_text: str, record: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with the release share of ``record`` after its step efficiencies."""
    from gpusim.calibrate.profile_patch import set_after

    entry = release_entry(record)
    entry["source"] += f" ({record_path})"
    header = f"# shared-memory release: {record_path}"
    return set_after(profile_text, "step_efficiency_2_warps_per_scheduler", {RELEASE_FIELD: entry},
                     header)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON (``--out``), or write the release share of a
    recorded run into a profile (``--record R --profile P``)."""
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if "--record" not in argv:
        return standalone.main(__doc__, run, argv)
    import argparse
    import json
    from pathlib import Path

    ap = argparse.ArgumentParser(description="write smem_sched_release_share into a profile")
    ap.add_argument("--record", type=Path, required=True)
    ap.add_argument("--profile", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        record = json.loads(a.record.read_text())
        text = apply_release(a.profile.read_text(), record, str(a.record))
    except (OSError, ValueError, KeyError) as exc:
        print(f"smem_overlap: error: {exc}", file=sys.stderr)
        return 2
    a.profile.write_text(text)
    print(f"{RELEASE_FIELD}: {release_entry(record)['value']} -> {a.profile}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
