"""Latency and pipe cost of the attention loop's instructions, per warp (kernels/sass_timing.cu).

Not part of the profile suite: run on its own (``python -m gpusim.calibrate.sass_timing
--out FILE``). One block of 4 warps (one per scheduler) or 8 (two per scheduler) runs 256
trips of 32 instructions of one kind: a dependent chain gives the cycles from one link's
issue to the next's (the latency a dependent instruction waits), eight independent chains
give the cycles a warp-instruction holds its scheduler's pipe. ``clock64()`` per warp, the
median over repeats. These feed the SASS core model (:mod:`gpusim.engine.core_model`), which
runs a kernel's compiled loop as the SM's schedulers would.
"""

from __future__ import annotations

import statistics
from typing import Any

from gpusim.calibrate import standalone
from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.sources import compile_module

#: (name, enum value in sass_timing.cu, what it measures)
OPS = (
    ("hmma_chain", 0, "latency"),
    ("hmma_tp", 1, "pipe"),
    ("ldsm_chain", 2, "latency"),
    ("ldsm_tp", 3, "pipe"),
    ("shfl_chain", 4, "latency"),
    ("shfl_tp", 5, "pipe"),
    ("mufu_chain", 6, "latency"),
    ("mufu_tp", 7, "pipe"),
    ("iadd_chain", 8, "latency"),
    ("fmnmx_tp", 9, "pipe"),
    ("fmul_tp", 10, "pipe"),
    ("f2fp_tp", 11, "pipe"),
    ("imad_tp", 12, "pipe"),
    ("lop3_tp", 13, "pipe"),
    ("hmma_use", 14, "latency"),
    ("bar_chain", 15, "latency"),
)
TRIPS = 256
QUICK_TRIPS = 32
INSTRS_PER_TRIP = 32
WARPS = (4, 8)
REPEATS = 5


def run(quick: bool = False) -> dict[str, Any]:
    """Cycles per instruction per warp of every op at 4 and 8 warps, ``REPEATS`` launches."""
    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    trips = QUICK_TRIPS if quick else TRIPS
    names = tuple(f"sass_timing<{v},{trips}>" for _n, v, _k in OPS)
    mod = compile_module(cp, "sass_timing.cu", names)
    rows = []
    for (name, _v, kind), expr in zip(OPS, names, strict=True):
        fn = mod.get_function(expr)
        for warps in WARPS:
            per_instr = []
            for r in range(REPEATS):
                out = cp.zeros(warps * 32, dtype=cp.uint32)
                cyc = cp.full(warps, -1, dtype=cp.int64)  # poisoned: every warp writes
                fn((1,), (warps * 32,), (out, cyc, cp.uint32(12345 + r)))
                cp.cuda.Device().synchronize()
                c = cyc.get()
                if (c <= 0).any():
                    raise RuntimeError(f"{name}: a warp wrote no cycle count")
                per_instr.append(float(c.mean()) / (trips * INSTRS_PER_TRIP))
            rows.append(
                {
                    "op": name,
                    "kind": kind,
                    "warps": warps,
                    "warps_per_scheduler": warps // 4,
                    "cycles_per_instr": statistics.median(per_instr),
                    "all": per_instr,
                }
            )
    return {
        "benchmark": "sass_timing",
        "gpu": ctx.gpu_name,
        "date": ctx.date,
        "trips": trips,
        "instrs_per_trip": INSTRS_PER_TRIP,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
