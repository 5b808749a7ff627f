"""The cost of a CTA beside its work: dispatch and retire (kernels/cta_launch.cu).

Not part of the profile suite: run on its own (``python -m gpusim.calibrate.cta_launch --out
FILE``). Grids of W waves of near-empty CTAs of 128 threads, C per SM (forced by the dynamic
shared memory asked for), event-timed: a least-squares line ``time = a + b W`` per C gives
``b``, what one wave of C CTAs per SM costs. Kernels of many short CTAs (a row softmax with
one CTA per row) pay it once per wave; :func:`per_wave_s` gives ``b`` for each C.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import import_cupy, make_context

CTAS = (1, 2, 4, 8, 16)
WAVES = (1, 4, 16, 64, 256)
THREADS = 128
REPEATS = 9
#: shared memory the GPU reserves per block (sm_90), and a margin below a C-th of the SM
RESERVED_BYTES = 1024
MARGIN_BYTES = 256


def run(quick: bool = False) -> dict[str, Any]:
    """Median event time of each (C, W) grid."""
    from gpusim.calibrate.sources import compile_module, kernel_attributes

    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    fn = compile_module(cp, "cta_launch.cu").get_function("cta_tick")
    smem_per_sm = int(cp.cuda.runtime.getDeviceProperties(0)["sharedMemPerMultiprocessor"])
    fn.max_dynamic_shared_size_bytes = smem_per_sm - RESERVED_BYTES - MARGIN_BYTES
    rows = []
    for c in CTAS:
        # A little under 1/C of the SM each, with the 1 KiB reserved per block: C fit, and
        # C + 1 do not (the margin is far smaller than a C-th of the SM for C <= 16).
        dyn = smem_per_sm // c - RESERVED_BYTES - MARGIN_BYTES
        for w in WAVES[: 3 if quick else None]:
            grid = ctx.sm_count * c * w
            out = cp.full(grid, cp.nan, dtype=cp.float32)
            fn((grid,), (THREADS,), (out,), shared_mem=dyn)  # warm-up
            times = []
            for _ in range(REPEATS):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                fn((grid,), (THREADS,), (out,), shared_mem=dyn)
                b.record()
                b.synchronize()
                times.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
            rows.append({"ctas_per_sm": c, "waves": w, "grid": grid, "dynamic_smem_bytes": dyn,
                         "median_s": float(np.median(times)), "times_s": times,
                         "outputs_finite": bool(cp.isfinite(out).all())})  # fmt: skip
            ctx.log(f"C={c} W={w}: {rows[-1]['median_s'] * 1e6:.1f} us")
    return {"gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "kernel": kernel_attributes(fn), "rows": rows}  # fmt: skip


def per_wave_s(record: dict[str, Any]) -> dict[int, float]:
    """``{C: seconds one more wave of C CTAs per SM adds}`` (least-squares slope over W)."""
    out = {}
    for c in sorted({r["ctas_per_sm"] for r in record["rows"]}):
        pts = [(r["waves"], r["median_s"]) for r in record["rows"] if r["ctas_per_sm"] == c]
        if len(pts) >= 2:
            w, t = np.array(pts, dtype=float).T
            out[c] = float(np.polyfit(w, t, 1)[0])
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
