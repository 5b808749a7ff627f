"""An attention step's wgmma products in the order warp-specialized kernels issue them, with
and without the softmax between them (kernels/wgmma.cu ``wg_step``; no attention code).

    python -m gpusim.calibrate.wgmma_step --out FILE [--cubin CUBIN]   (on the GPU)
    python -m gpusim.calibrate.wgmma_step --table FILE

Per warpgroup and loop iteration: S = Q K^T (m64 n=Bc, both operands from shared memory, d/16
products), commit, O += P V (m64 n=d, A from registers, Bc/16 products), commit, wait for S
(P V stays in flight); with the softmax: a pass over S's accumulators (max, shuffles, exp2,
sum) and its 16-bit packing, then wait for P V and rescale O. One CTA of 1-3 consumer
warpgroups per SM on every SM, bf16, 128-byte swizzled operands; SM cycles per iteration
from each block's clock64 (``gpusim.calibrate.throughput.run_config``). The shapes are those
of the project's wgmma instances (Bc 80 and 176 lie between the measured 64/96 and 128/192).
Fed to nothing by this module.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from gpusim.calibrate.record_table import table_or_measure

#: (Bc, d, consumer warpgroups) of the sweep
SHAPES = (
    (96, 64, 3), (128, 64, 2), (192, 64, 2),
    (64, 128, 2), (96, 128, 2), (128, 128, 2), (192, 128, 2),
    (64, 256, 1), (64, 256, 2), (96, 256, 2),
)  # fmt: skip


def step_name(bc: int, d: int, soft: int, gmax: int) -> str:
    return f"_Z7wg_stepILi{bc}ELi{d}ELi1ELi{soft}ELi{gmax}EEvPKjiiiiPfPy"


def step_flops(bc: int, d: int, groups: int) -> int:
    """FLOP of one iteration of a CTA: each warpgroup's two m64 products of Bc x d."""
    return groups * 2 * (2 * 64 * bc * d)


def measure(cubin: Path | None = None) -> dict[str, Any]:
    from gpusim.calibrate.context import import_cupy, make_context
    from gpusim.calibrate.wgmma import Bench, build_cubin

    ctx = make_context(import_cupy())
    log = ""
    if cubin is None:
        cubin, log = build_cubin(Path(tempfile.mkdtemp(prefix="gpusim-wgmma-step-")))
    b = Bench(ctx, cubin)
    for bc, d, groups in SHAPES:
        for soft in (0, 1):
            name = step_name(bc, d, soft, 3 if groups == 3 else 2)
            label = f"wg_step Bc{bc} d{d} x{groups} {'softmax' if soft else 'products'}"
            row = b.timed(name, "bf16", groups, 1, 0, 1, bc + d, step_flops(bc, d, groups), label)
            if row is not None:
                row |= {"block_n": bc, "head_dim": d, "softmax": bool(soft), "kind": "step"}
                ctx.log(
                    f"{label}: {row['cycles_per_iter']:.0f} cycles per step, "
                    f"{row['flops_per_clk_per_sm']:.0f} FLOP/clk/SM"
                )
    return {
        "kind": "gpusim.wgmma_step",
        "gpu": ctx.gpu_name,
        "date": ctx.date,
        "sm_count": ctx.sm_count,
        "ptxas_report": log,
        "kernels": b.kernels,
        "rows": [r for r in b.rows if r.get("kind") == "step"],
        "skipped": [r for r in b.rows if r.get("kind") != "step"],
    }


def table(doc: dict[str, Any]) -> str:
    """Cycles per step with and without the softmax, and what the softmax adds."""
    if doc.get("kind") != "gpusim.wgmma_step":
        raise ValueError("not a wgmma_step record")
    by = {(r["block_n"], r["head_dim"], r["warpgroups"], r["softmax"]): r for r in doc["rows"]}
    lines = [
        "| Bc | d | warpgroups | products cycles | FLOP/clk/SM | with softmax cycles "
        "| FLOP/clk/SM | softmax adds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for bc, d, g in SHAPES:
        p, s = by.get((bc, d, g, False)), by.get((bc, d, g, True))
        if p is None or s is None:
            continue
        lines.append(
            f"| {bc} | {d} | {g} | {p['cycles_per_iter']:.0f} | {p['flops_per_clk_per_sm']:.0f} "
            f"| {s['cycles_per_iter']:.0f} | {s['flops_per_clk_per_sm']:.0f} "
            f"| {s['cycles_per_iter'] / p['cycles_per_iter'] - 1:+.0%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path)
    ap.add_argument("--cubin", type=Path)
    a = ap.parse_args(argv)
    if a.table is None and a.out is None:
        ap.error("--out or --table is required")
    return table_or_measure(a.table, a.out, lambda: measure(a.cubin), table, "wgmma_step")


if __name__ == "__main__":
    raise SystemExit(main())
