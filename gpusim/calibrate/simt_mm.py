"""FFMA products streaming from shared memory, as the fp32 kernel does them (kernels/simt_mm.cu).

``gpusim calibrate`` runs it as its ``simt_mm`` benchmark (``--quick``: fewer, shorter
launches); on its own: ``python -m gpusim.calibrate.simt_mm --out FILE``. For each tile
shape of the fp32 flash2 kernel that the validation sweep runs, and 1, 2 and 4 CTAs per SM
(as shared memory allows), it records the products' FLOPs per SM clock and the SM clock: S =
Q K^T and P V of one tile per iteration, operands from shared memory in the kernel's own
layout, no global memory and no softmax. The engine's fp32 product rate is checked against
these (tests/calibrate/test_simt_mm_record.py).

Not free of attention-kernel code, unlike the other microbenchmarks: kernels/simt_mm.cu
includes the fp32 flash2 kernel's two product loops as text (gpusim/kernels/simt_products.inc,
the statements flash2_simt.cu includes at the same place), with its thread layout, register
blocking and shared-memory layout (no softmax, no global memory, no timing of the kernel
itself); ``python -m gpusim.kernels.sass_identity`` shows that the include changed no
machine code of either. :data:`SHARES_KERNEL_CODE` says so in the profile's note (its words
are those the recorded runs carry, taken when the loop was still a copy).
"""

from __future__ import annotations

from typing import Any

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.throughput import run_config

#: (D, BR, BC, WARPS) instances compiled by kernels/simt_mm.cu
SHAPES = (
    (64, 64, 64, 8),
    (128, 64, 32, 8),
    (64, 64, 32, 4),
    (64, 64, 64, 4),
    (64, 128, 32, 8),
    (64, 128, 64, 8),
    (128, 64, 64, 8),
)
#: CTAs per SM tried (those the shared memory holds)
CTAS_PER_SM = (1, 2, 4)
FP32_BYTES = 4
#: What the profile's note says of where this benchmark's code comes from.
SHARES_KERNEL_CODE = (
    "shares code with an attention kernel: kernels/simt_mm.cu copies the product loop of "
    "gpusim/kernels/flash2_simt.cu (issue 17: include it instead)"
)


def smem_bytes(d: int, br: int, bc: int) -> int:
    """Dynamic shared memory of one CTA: Q, K, V with padded rows, and the P buffer."""
    ld, ldp = d + 4, bc + 16
    return (br * ld + 2 * bc * ld + br * ldp) * FP32_BYTES


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0 (``--quick``: the suite's quick variant)."""
    return measure(make_context(import_cupy(), quick=quick))


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every tile shape at each CTAs-per-SM count that fits: FLOPs per clock per SM."""
    cp = ctx.cp
    names = tuple(f"simt_mm<{d},{br},{bc},{w}>" for d, br, bc, w in SHAPES)
    mod = compile_module(cp, "simt_mm.cu", names)
    init = cp.random.uniform(-1.0, 1.0, size=4096, dtype=cp.float32)
    smem_per_sm = cp.cuda.Device().attributes["MaxSharedMemoryPerMultiprocessor"]
    rows, kernels = [], {}
    for (d, br, bc, w), name in zip(SHAPES, names, strict=True):
        fn = mod.get_function(name)
        smem = smem_bytes(d, br, bc)
        fn.max_dynamic_shared_size_bytes = smem
        kernels[name] = kernel_attributes(fn) | {"dynamic_smem_bytes": smem}
        threads = 32 * w
        out = cp.full(ctx.sm_count * max(CTAS_PER_SM) * threads, cp.nan, dtype=cp.float32)
        for blocks in CTAS_PER_SM:
            if blocks * (smem + 1024) > smem_per_sm:
                continue

            def args(iters: int, stamps: Any, out: Any = out) -> tuple[Any, ...]:
                return (init, cp.int32(iters), out, stamps)

            cfg = run_config(
                ctx,
                fn,
                args,
                threads,
                blocks,
                work_per_iter_per_block=4 * br * bc * d,  # two products, 2 FLOP per FMA
                unit="FLOP",
                label=name,
                shared_mem_bytes=smem,
            )
            written = out[: ctx.sm_count * blocks * threads]
            row = {
                "head_dim": d,
                "block_m": br,
                "block_n": bc,
                "warps": w,
                "ctas_per_sm": blocks,
                "flops_per_clk_per_sm": cfg["per_clk_per_sm"]["median"],
                "sm_clock_hz": cfg["sm_clock_hz"]["median_hz"],
                "outputs_finite": bool(cp.isfinite(written).all()),
                "raw": cfg,
            }
            ctx.log(
                f"{name} x{blocks}/SM: {row['flops_per_clk_per_sm']:.1f} FLOP/clk/SM at "
                f"{row['sm_clock_hz'] / 1e6:.0f} MHz, finite={row['outputs_finite']}"
            )
            rows.append(row)
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


def profile_entry(record: dict[str, Any]) -> dict[str, Any]:
    """The profile's ``simt_mma_flops_per_clk_per_sm`` from a recorded run.

    Each tile shape at the most CTAs per SM it was run with (what its shared memory
    allows, as the kernel runs), then the median over the shapes: one rate for the
    engine, which has no notion of the kernel's register blocking.
    """
    best: dict[tuple, dict[str, Any]] = {}
    for r in record["rows"]:
        key = (r["head_dim"], r["block_m"], r["block_n"], r["warps"])
        if key not in best or r["ctas_per_sm"] > best[key]["ctas_per_sm"]:
            best[key] = r
    if not best:
        raise ValueError("the simt_mm record has no rows")
    rates = sorted(r["flops_per_clk_per_sm"] for r in best.values())
    mid = len(rates) // 2
    median = rates[mid] if len(rates) % 2 else (rates[mid - 1] + rates[mid]) / 2
    return {
        "value": round(median, 1),
        "source": (
            f"measured on {record['gpu']}, {record['date']}, python -m gpusim.calibrate.simt_mm"
        ),
        "note": (
            f"median over {len(rates)} tile shapes of the fp32 flash2 kernel, each at the most "
            f"CTAs per SM its shared memory allows (range {rates[0]:.1f}-{rates[-1]:.1f} "
            "FLOP/clk/SM); the two products of one tile alone, operands from shared memory "
            "in the kernel's layout, no global memory and no softmax"
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
