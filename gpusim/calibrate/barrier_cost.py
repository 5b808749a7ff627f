"""Microbenchmark: what one ``__syncthreads()`` costs a CTA, in SM cycles (needs CuPy and a GPU).

    python -m gpusim.calibrate.barrier_cost > OUT/barrier_cost_<gpu>.json

(The H200's: data/h200/2026-11-30_barrier_cost/barrier_cost_h200.json.)

Each thread runs a loop of one dependent FFMA with and without a barrier per
iteration; the difference of ``clock64()`` cycles per iteration is the
barrier's cost, for 1 to 16 warps per CTA and one CTA per SM. The profiles'
``barrier_base_cycles`` and ``barrier_cycles_per_warp`` (hardware_profiles/h200-sxm.yaml)
come from this measurement.
"""

from __future__ import annotations

import datetime
import json
import platform
import sys

import cupy as cp

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


def main() -> None:
    """Measure and print one JSON object."""
    kernel = cp.RawKernel(SRC, "loop")
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    sms = props["multiProcessorCount"]
    out = cp.zeros(sms, dtype=cp.int64)
    sink = cp.zeros(1, dtype=cp.float32)
    results = {}
    for warps in (1, 2, 4, 8, 16):
        cycles = {}
        for sync in (0, 1):
            best = None
            for _ in range(5):
                kernel((sms,), (32 * warps,), (out, sink, cp.int32(ITERS), cp.int32(sync)))
                cp.cuda.Device().synchronize()
                med = float(cp.median(out.astype(cp.float64)).get()) / ITERS
                best = med if best is None else min(best, med)
            cycles[sync] = best
        results[str(warps)] = {
            "cycles_per_iteration_without_barrier": cycles[0],
            "cycles_per_iteration_with_barrier": cycles[1],
            "barrier_cycles": cycles[1] - cycles[0],
        }
    print(
        json.dumps(
            {
                "device_name": props["name"].decode(),
                "sm_count": sms,
                "cupy": cp.__version__,
                "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                "cuda_driver": cp.cuda.runtime.driverGetVersion(),
                "python": platform.python_version(),
                "date_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "iterations": ITERS,
                "ctas": sms,
                "by_warps_per_cta": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
