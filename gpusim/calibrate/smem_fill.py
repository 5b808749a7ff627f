"""cp.async fills of shared memory against ldmatrix reads of it (kernels/smem_fill.cu).

``gpusim calibrate`` runs it as its ``smem_fill`` benchmark (``--quick``: fewer, shorter
launches); on its own: ``python -m gpusim.calibrate.smem_fill --out FILE``. For each loop
(``NLD`` ldmatrix.x4 and ``NFILL`` 16-byte cp.async per lane per warp-iteration, the fills
from an L2-resident buffer) and each launch shape (1, 2 and 4 warps per scheduler), it
records warp-iterations per SM clock and the SM clock. The engine charges a tile load to the
shared-memory lane; how much of a filled byte that lane really pays is what
:func:`profile_entries` derives: the loop with fills against the loop without.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.warp_loops import SHAPES, loop_rows

#: (NLD, NFILL) loops compiled by kernels/smem_fill.cu
LOOPS = (
    (32, 0),  # ldmatrix alone: the read rate
    (0, 4),  # fills alone, at the two fill amounts: can L2 feed them faster than the reads run?
    (0, 8),
    (32, 4),  # one filled byte per 8 read (8 warps reading each K/V tile, as with 8 warps)
    (32, 8),  # one per 4 (4 warps)
    (16, 8),  # one per 2
)
#: Bytes one ldmatrix.x4, or one 16-byte cp.async per lane, moves for a warp.
WARP_OP_BYTES = 512
#: The L2-resident source of the fills: 8 MiB of 16-byte words (a power of two: masked).
SOURCE_WORDS = 1 << 19
#: Launch shapes whose ratios feed the profile: 2 and 4 warps per scheduler (the flash
#: kernels' range; at 1 the loop is latency-bound and says nothing about bandwidth).
COST_WARPS_PER_SCHEDULER = (2, 4)


def loop_name(nld: int, nfill: int) -> str:
    """The template instance of one loop."""
    return f"smem_fill<{nld},{nfill}>"


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0 (``--quick``: the suite's quick variant)."""
    return measure(make_context(import_cupy(), quick=quick))


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every loop at every launch shape: warp-iterations per clock per SM, and the clock."""
    cp = ctx.cp
    mod = compile_module(cp, "smem_fill.cu", tuple(loop_name(*lp) for lp in LOOPS))
    words = cp.random.randint(0, 2**31, size=4 * SOURCE_WORDS, dtype=cp.int64).astype(cp.uint32)
    threads_max = max(t * b for t, b in SHAPES) * ctx.sm_count
    out = cp.full(threads_max, cp.nan, dtype=cp.float32)  # poisoned: every thread writes
    rows, kernels = [], {}
    for nld, nfill in LOOPS:
        name = loop_name(nld, nfill)
        kernel = mod.get_function(name)
        kernels[name] = kernel_attributes(kernel)

        def args(iters: int, stamps: Any) -> tuple[Any, ...]:
            mask = np.uint32(SOURCE_WORDS - 1)
            return (words, mask, np.int32(iters), np.uint32(0), out, stamps)

        for row in loop_rows(ctx, kernel, name, {"nld": nld, "nfill": nfill}, SHAPES, args):
            per_clk = row["raw"]["per_clk_per_sm"]["median"]
            row["read_bytes_per_clk_per_sm"] = per_clk * nld * WARP_OP_BYTES
            row["fill_bytes_per_clk_per_sm"] = per_clk * nfill * WARP_OP_BYTES
            rows.append(row)
    finite = bool(cp.isfinite(out[: ctx.sm_count * 128]).all())
    ctx.log(f"outputs finite (first launch shape's threads): {finite}")
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


def fill_costs(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per loop with reads and fills, per launch shape: the read bytes a filled byte costs.

    With ``t0`` cycles for an iteration's ``R`` read bytes alone and ``t1`` with ``F`` filled
    bytes as well, a filled byte costs ``(t1 / t0 - 1) R / F`` read bytes (0: fills are free,
    1: they take the reads' bandwidth byte for byte). Shapes where the fills alone take at
    least as long as the loop with both say nothing about sharing (L2 bounds them) and are
    marked ``fill_bound``.
    """
    cyc = {
        (r["nld"], r["nfill"], r["threads"], r["ctas_per_sm"]): r[
            "cycles_per_iteration_per_scheduler"
        ]
        for r in record["rows"]
    }
    wps = {(r["threads"], r["ctas_per_sm"]): r["warps_per_scheduler"] for r in record["rows"]}
    out = []
    for (nld, nfill, t, b), t1 in sorted(cyc.items()):
        if not nld or not nfill or (nld, 0, t, b) not in cyc:
            continue
        t0 = cyc[(nld, 0, t, b)]
        alone = cyc.get((0, nfill, t, b), 0.0)
        out.append(
            {
                "nld": nld,
                "nfill": nfill,
                "threads": t,
                "ctas_per_sm": b,
                "warps_per_scheduler": wps[(t, b)],
                "cost": (t1 / t0 - 1.0) * nld / nfill,
                "fill_bound": alone >= t1,
            }
        )
    return out


def profile_entries(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``smem_fill_cost_per_byte`` from a recorded run: the median cost over the loops and
    the shapes with 2 and 4 warps per scheduler that are not fill-bound, clipped to [0, 1]
    (the median: single shapes scatter by tens of percent of the loop time, both ways)."""
    costs = [
        c
        for c in fill_costs(record)
        if c["warps_per_scheduler"] in COST_WARPS_PER_SCHEDULER and not c["fill_bound"]
    ]
    if not costs:
        raise ValueError("no loop with reads and fills that L2 did not bound")
    vals = sorted(c["cost"] for c in costs)
    mid = len(vals) // 2
    median = vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2
    return {
        "smem_fill_cost_per_byte": {
            "value": round(min(1.0, max(0.0, median)), 3),
            "source": (
                f"measured on {record['gpu']}, {record['date']}, "
                "python -m gpusim.calibrate.smem_fill"
            ),
            "note": (
                "read bytes of ldmatrix one byte filled by cp.async costs, median of "
                f"{len(costs)} loop-shapes with 2 and 4 warps per scheduler: "
                + ", ".join(f"{c['cost']:.2f}" for c in costs)
            ),
        }
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
