"""Microbenchmark: what one ``__syncthreads()`` costs a CTA, in SM cycles (needs CuPy and a GPU).

    python -m gpusim.calibrate.barrier_cost > OUT/barrier_cost_<gpu>.json

(The H200's: data/h200/2026-11-30_barrier_cost/barrier_cost_h200.json.) ``gpusim
calibrate`` runs the same measurement as its ``barrier`` benchmark.

Each thread runs a loop of one dependent FFMA with and without a barrier per
iteration; the difference of ``clock64()`` cycles per iteration is the
barrier's cost, for 1 to 16 warps per CTA and one CTA per SM. The profiles'
``barrier_base_cycles`` and ``barrier_cycles_per_warp`` are the least-squares line
through those costs (:func:`profile_entries`).
"""

from __future__ import annotations

import datetime
import json
import platform
import sys
from typing import Any

import numpy as np

SRC = r"""
extern "C" __global__ void loop(long long* out, float* sink, int iters, int sync) {
    __syncthreads();
    float x = threadIdx.x;
    long long t0 = clock64();
    if (sync) {
        for (int i = 0; i < iters; ++i) { x = x * 1.0001f + 0.5f; __syncthreads(); }
    } else {
        for (int i = 0; i < iters; ++i) { x = x * 1.0001f + 0.5f; }
    }
    long long t1 = clock64();
    if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
    if (x == 12345.0f) sink[0] = x;
}
"""

ITERS = 20000
QUICK_ITERS = 2000
WARPS = (1, 2, 4, 8, 16)
REPEATS = 5


def measure(cp: Any, quick: bool = False) -> dict[str, Any]:
    """Cycles per iteration with and without a barrier, by warps per CTA: one JSON object.

    Each count is the best (smallest) over :data:`REPEATS` launches of the median over the
    SMs' CTAs; every launch's median is kept (``repeats``) for the spread.
    """
    kernel = cp.RawKernel(SRC, "loop")
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    sms = props["multiProcessorCount"]
    iters = QUICK_ITERS if quick else ITERS
    out = cp.zeros(sms, dtype=cp.int64)
    sink = cp.zeros(1, dtype=cp.float32)
    results = {}
    for warps in WARPS:
        cycles, repeats = {}, {}
        for sync in (0, 1):
            meds = []
            for _ in range(REPEATS):
                out.fill(-1)  # poisoned: every CTA's thread 0 writes its count
                kernel((sms,), (32 * warps,), (out, sink, cp.int32(iters), cp.int32(sync)))
                # One count per SM: checked and reduced on the host. CuPy's median would
                # compile its sort kernels first, 7.6 s of a cold --quick run on the H100
                # (data/h100/2026-12-06_calibrate_quick_profile) for 132 numbers.
                counts = np.asarray(out.get(), dtype=np.float64)
                if bool((counts <= 0).any()):
                    raise RuntimeError(f"a CTA wrote no cycle count ({warps} warps)")
                meds.append(float(np.median(counts)) / iters)
            cycles[sync], repeats[sync] = min(meds), meds
        results[str(warps)] = {
            "cycles_per_iteration_without_barrier": cycles[0],
            "cycles_per_iteration_with_barrier": cycles[1],
            "barrier_cycles": cycles[1] - cycles[0],
            "repeats_without_barrier": repeats[0],
            "repeats_with_barrier": repeats[1],
        }
    name = props["name"]
    return {
        "device_name": name.decode() if isinstance(name, bytes) else str(name),
        "sm_count": sms,
        "cupy": cp.__version__,
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cuda_driver": cp.cuda.runtime.driverGetVersion(),
        "python": platform.python_version(),
        "date_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "iterations": iters,
        "ctas": sms,
        "by_warps_per_cta": results,
    }


def fit(record: dict[str, Any]) -> tuple[float, float]:
    """``(base, per_warp)`` cycles of the least-squares line through the barrier costs."""
    rows = record["by_warps_per_cta"]
    xs = [float(w) for w in rows]
    ys = [float(r["barrier_cycles"]) for r in rows.values()]
    if len(xs) < 2:
        raise ValueError("fewer than two warp counts in the barrier record")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return my - slope * mx, slope


def profile_entries(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``barrier_base_cycles`` and ``barrier_cycles_per_warp`` from a record (sources are the
    caller's: the suite's or a file's)."""
    base, per_warp = fit(record)
    if base <= 0 or per_warp <= 0:
        raise ValueError(f"the barrier costs fit {base:.2f} + {per_warp:.2f} x warps, not positive")
    rows = record["by_warps_per_cta"]
    costs = ", ".join(f"{r['barrier_cycles']:.1f}" for r in rows.values())
    note = (
        f"{costs} cycles for {', '.join(rows)} warps per CTA (one CTA per SM, best of "
        f"{REPEATS} launches); least-squares fit {base:.2f} + {per_warp:.2f} x warps"
    )
    return {
        "barrier_base_cycles": {"value": round(base, 2), "note": note},
        "barrier_cycles_per_warp": {"value": round(per_warp, 3), "note": note},
    }


def main() -> None:
    """Measure and print one JSON object."""
    import cupy as cp

    print(json.dumps(measure(cp), indent=2))


if __name__ == "__main__":
    sys.exit(main())
