"""mma.sync products and fp32 atomic adds in one loop: beside each other, or one after the other?

    python -m gpusim.calibrate.red_mma --out FILE      (on the GPU)
    python -m gpusim.calibrate.red_mma --table FILE

Held-out set 15 found the model's backward 13-26 % fast, and charging dQ's atomic adds on the
L2 at ``l2_atomics``' rate (0.996 TB/s) overshoots (+44 %). This measures, with no attention
code (``kernels/red_mma.cu``), what the adds cost an SM that also computes: one CTA of 8 warps
per SM on every SM, each step every warp issuing ``NMMA`` mma.sync m16n8k16 from registers
and ``NRED`` warp-wide fp32 atomic adds in an m16n8 accumulator's layout (320 and 32 are
FlashAttention-2's backward at d128, 64 x 128 tiles: five products and a 64 x 128 fp32 dQ
block a step). SM cycles per step from clock64 in every CTA (median over CTAs, median of the
launches); the buffer's sum checked against the adds made.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.event_timing import event_times_s
from gpusim.calibrate.record_table import record_main
from gpusim.calibrate.sources import compile_module, kernel_attributes

KIND = "gpusim.red_mma"
BUFFER_BYTES, THREADS, STEPS, REPEATS, WARMUP = 16 << 20, 256, 2000, 5, 1
#: (mma.sync per warp and step, warp-wide atomic adds per warp and step)
VARIANTS = ((320, 0), (0, 32), (320, 32), (0, 64), (320, 64), (160, 0), (160, 32))
#: what one warp-wide add of ``red_mma.cu`` adds over its 32 lanes: sum of 1 + (lane % 8) / 8
ADD_PER_RED = 4 * sum(1 + k / 8 for k in range(8))


def kernel_name(nmma: int, nred: int) -> str:
    return f"red_mma<{nmma}, {nred}>"


def measure(ctx: BenchContext | None = None) -> dict[str, Any]:
    """Each variant's SM cycles per step, its time and the adds' check."""
    ctx = ctx or make_context(import_cupy())
    cp = ctx.cp
    mod = compile_module(cp, "red_mma.cu", tuple(kernel_name(*v) for v in VARIANTS))
    floats, ctas = BUFFER_BYTES // 4, ctx.sm_count
    rows, kernels = [], {}
    for nmma, nred in VARIANTS:
        fn = mod.get_function(kernel_name(nmma, nred))
        kernels[kernel_name(nmma, nred)] = kernel_attributes(fn)
        buf = cp.zeros(floats, dtype=cp.float32)
        cycles = cp.zeros(ctas, dtype=cp.int64)
        out = cp.full(ctas * THREADS, cp.nan, dtype=cp.float32)
        args = (buf, np.uint64(floats), np.int32(STEPS), cycles, out)

        def launch(fn=fn, args=args):
            fn((ctas,), (THREADS,), args)

        times = event_times_s(cp, launch, repeats=REPEATS, warmup=WARMUP)
        per_step = float(np.median(cp.asnumpy(cycles))) / STEPS  # the last launch's CTAs
        launches = WARMUP + REPEATS
        want = ADD_PER_RED * ctas * 8 * nred * STEPS * launches
        got = float(cp.sum(buf, dtype=cp.float64))
        med = float(np.median(times))
        rows.append({
            "mma_per_warp": nmma, "red_per_warp": nred, "cycles_per_step": per_step,
            "median_s": med, "times_s": times, "sm_clock_hz": per_step * STEPS / med,
            "red_bytes_per_step_per_sm": nred * 8 * 128, "expected_sum": want, "buffer_sum": got,
            "sum_ok": abs(got - want) <= 1e-6 * max(want, 1.0),
            "outputs_finite": bool(cp.isfinite(out).all()),
        })  # fmt: skip
        ctx.log(f"mma {nmma} red {nred}: {per_step:.0f} cycles a step")
    return {"kind": KIND, "gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "buffer_bytes": BUFFER_BYTES, "threads": THREADS, "steps": STEPS,
            "kernels": kernels, "rows": rows}  # fmt: skip


def table(doc: dict[str, Any]) -> str:
    """Cycles per step of each variant, and the mixed ones against their parts."""
    if doc.get("kind") != KIND:
        raise ValueError("not a red_mma record")
    by = {(r["mma_per_warp"], r["red_per_warp"]): r["cycles_per_step"] for r in doc["rows"]}
    lines = ["| mma.sync / warp | adds / warp | cycles a step | products alone + adds alone "
             "| max of the two | sum checked |", "|---|---|---|---|---|---|"]  # fmt: skip
    for r in doc["rows"]:
        m, a = r["mma_per_warp"], r["red_per_warp"]
        parts = (by.get((m, 0)), by.get((0, a))) if m and a else (None, None)
        both = "-" if None in parts else f"{parts[0] + parts[1]:.0f}"
        top = "-" if None in parts else f"{max(parts):.0f}"
        ok = "yes" if r["sum_ok"] else "NO"
        lines.append(f"| {m} | {a} | {r['cycles_per_step']:.0f} | {both} | {top} | {ok} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return record_main(argv, __doc__.split("\n\n")[0], measure, table, "red_mma")


if __name__ == "__main__":
    raise SystemExit(main())
