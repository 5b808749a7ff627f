"""Local memory (LDL/STL) on its own and beside mma.sync products.

    python -m gpusim.calibrate.local_mem --out FILE      (on the GPU)
    python -m gpusim.calibrate.local_mem --table FILE

PyTorch's FlashAttention-2 kernels run at 255 registers and keep part of their state in
local memory: its forward at d128 loads 12 and stores 14 words of it a step beside 256
products per warp (``data/h200/2026-12-02_torch_flash_sass``), and the SM core model replays
those loads as integer instructions of 20 cycles' latency (``gpusim/engine/core_model.py``),
a figure nobody measured. This measures it with no attention code
(``kernels/local_mem.cu``): the load-to-use latency of a chain of dependent local loads (one
warp per SM), and SM cycles per step of one CTA of 8 warps per SM issuing products, local
stores and local loads in the forward's proportion and four times it, beside the products
alone and the local accesses alone. Median over CTAs (clock64), median of the launches.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.event_timing import event_times_s
from gpusim.calibrate.record_table import record_main
from gpusim.calibrate.sources import compile_module, kernel_attributes

KIND = "gpusim.local_mem"
THREADS, STEPS, CHASE_STEPS, REPEATS, WARMUP = 256, 2000, 20000, 5, 1
#: (mma.sync, local loads, local stores) per warp and step
VARIANTS = ((256, 0, 0), (0, 12, 14), (256, 12, 14), (0, 48, 56), (256, 48, 56))
CHASE = "local_chase"


def kernel_name(nmma: int, nld: int, nst: int) -> str:
    return f"local_mma<{nmma}, {nld}, {nst}>"


def measure(ctx: BenchContext | None = None) -> dict[str, Any]:
    """The chase's cycles per load, and each variant's SM cycles per step."""
    ctx = ctx or make_context(import_cupy())
    cp = ctx.cp
    names = (CHASE, *(kernel_name(*v) for v in VARIANTS))
    mod = compile_module(cp, "local_mem.cu", names)
    ctas = ctx.sm_count
    kernels = {}
    fn = mod.get_function(CHASE)
    kernels[CHASE] = kernel_attributes(fn)
    cycles = cp.zeros(ctas, dtype=cp.int64)
    iout = cp.full(ctas * 32, -1, dtype=cp.int32)

    def chase(fn=fn):
        fn((ctas,), (32,), (np.int32(CHASE_STEPS), np.int32(7), cycles, iout))

    times = event_times_s(cp, chase, repeats=REPEATS, warmup=WARMUP)
    latency = float(np.median(cp.asnumpy(cycles))) / CHASE_STEPS
    ctx.log(f"local load latency: {latency:.1f} cycles")
    in_range = bool(((iout >= 0) & (iout < 64)).all())
    chase_row = {"cycles_per_load": latency, "median_s": float(np.median(times)),
                 "times_s": times, "outputs_in_range": in_range}  # fmt: skip
    rows = []
    for nmma, nld, nst in VARIANTS:
        fn = mod.get_function(kernel_name(nmma, nld, nst))
        kernels[kernel_name(nmma, nld, nst)] = kernel_attributes(fn)
        cycles = cp.zeros(ctas, dtype=cp.int64)
        out = cp.full(ctas * THREADS, cp.nan, dtype=cp.float32)

        def launch(fn=fn, cycles=cycles, out=out):
            fn((ctas,), (THREADS,), (np.int32(STEPS), np.int32(7), cycles, out))

        times = event_times_s(cp, launch, repeats=REPEATS, warmup=WARMUP)
        per_step = float(np.median(cp.asnumpy(cycles))) / STEPS
        med = float(np.median(times))
        rows.append({
            "mma_per_warp": nmma, "local_loads_per_warp": nld, "local_stores_per_warp": nst,
            "cycles_per_step": per_step, "median_s": med, "times_s": times,
            "sm_clock_hz": per_step * STEPS / med, "outputs_finite": bool(cp.isfinite(out).all()),
        })  # fmt: skip
        ctx.log(f"mma {nmma} ldl {nld} stl {nst}: {per_step:.0f} cycles a step")
    return {"kind": KIND, "gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "threads": THREADS, "steps": STEPS, "chase_steps": CHASE_STEPS,
            "kernels": kernels, "chase": chase_row, "rows": rows}  # fmt: skip


def table(doc: dict[str, Any]) -> str:
    """The latency, then cycles per step of each variant beside its parts."""
    if doc.get("kind") != KIND:
        raise ValueError("not a local_mem record")
    by = {
        (r["mma_per_warp"], r["local_loads_per_warp"], r["local_stores_per_warp"]):
        r["cycles_per_step"] for r in doc["rows"]
    }  # fmt: skip
    lines = [f"local load-to-use latency: {doc['chase']['cycles_per_load']:.1f} cycles", "",
             "| mma.sync / warp | local loads / warp | local stores / warp | cycles a step "
             "| products alone + locals alone | max of the two |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for r in doc["rows"]:
        m, ld, st = r["mma_per_warp"], r["local_loads_per_warp"], r["local_stores_per_warp"]
        parts = (by.get((m, 0, 0)), by.get((0, ld, st))) if m and ld else (None, None)
        both = "-" if None in parts else f"{parts[0] + parts[1]:.0f}"
        top = "-" if None in parts else f"{max(parts):.0f}"
        lines.append(f"| {m} | {ld} | {st} | {r['cycles_per_step']:.0f} | {both} | {top} |")
    return "\n".join(lines)


def cycles(doc: dict[str, Any]) -> dict[str, float]:
    """``local_latency`` and ``local_access`` of a record: the chase's cycles per load; the SM
    cycles per warp-wide access of the locals-only variants (8 warps a CTA, one CTA per SM),
    their median."""
    if doc.get("kind") != KIND:
        raise ValueError("not a local_mem record")
    per = sorted(
        r["cycles_per_step"] / (8 * (r["local_loads_per_warp"] + r["local_stores_per_warp"]))
        for r in doc["rows"]
        if r["mma_per_warp"] == 0
    )
    return {"local_latency": doc["chase"]["cycles_per_load"], "local_access": per[len(per) // 2]}


def apply(profile_text: str, doc: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with the record's two cycle counts in its ``sass_core_cycles`` (which
    it must have) and a header line naming the record."""
    from gpusim.calibrate.profile_patch import add_core_cycles

    mark = "; local_latency, local_access: python -m gpusim.calibrate.local_mem"
    return add_core_cycles(profile_text, cycles(doc), mark, doc.get("date"),
                           f"# local memory cycles: {record_path}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    return record_main(
        argv, __doc__.split("\n\n")[0], measure, table, "local_mem", apply=apply,
        field="sass_core_cycles' local_latency and local_access",
    )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
