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
            per_instr, per_warp = [], []
            for r in range(REPEATS):
                out = cp.zeros(warps * 32, dtype=cp.uint32)
                cyc = cp.full(warps, -1, dtype=cp.int64)  # poisoned: every warp writes
                fn((1,), (warps * 32,), (out, cyc, cp.uint32(12345 + r)))
                cp.cuda.Device().synchronize()
                c = cyc.get()
                if (c <= 0).any():
                    raise RuntimeError(f"{name}: a warp wrote no cycle count")
                per_instr.append(float(c.mean()) / (trips * INSTRS_PER_TRIP))
                # each warp's own cycles: how the scheduler shares its issue slots between
                # two warps (oldest first: one ends long before the other; round robin: together)
                per_warp.append([int(x) for x in c])
            rows.append(
                {
                    "op": name,
                    "kind": kind,
                    "warps": warps,
                    "warps_per_scheduler": warps // 4,
                    "cycles_per_instr": statistics.median(per_instr),
                    "all": per_instr,
                    "per_warp_cycles": per_warp,
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


def _cycles(record: dict[str, Any], op: str, warps: int) -> float:
    for r in record["rows"]:
        if r["op"] == op and r["warps"] == warps:
            return float(r["cycles_per_instr"])
    raise ValueError(f"no {op} row at {warps} warps")


def profile_entry(record: dict[str, Any]) -> dict[str, Any]:
    """``sass_core_cycles`` from a recorded run: latencies from the one-warp-per-scheduler
    chains (the ldmatrix and HMMA-result chains less the integer add or move each link
    carries), pipe cycles from the two-warps-per-scheduler streams (per scheduler: the
    per-warp figure halved), barriers back to back at 4 and 8 warps. The ldmatrix stream is
    not used: the compiler merged its loads of equal addresses (5 per trip, not 32); the
    shared memory's bandwidth is the profile's own."""
    link = _cycles(record, "iadd_chain", 4)
    alu = statistics.median(_cycles(record, op, 8) / 2 for op in ("fmnmx_tp", "lop3_tp", "f2fp_tp"))
    value = {
        "hmma_pipe": _cycles(record, "hmma_tp", 8) / 2,
        "hmma_accumulate": _cycles(record, "hmma_chain", 4),
        "hmma_result": _cycles(record, "hmma_use", 4) - link,
        "ldsm_latency": _cycles(record, "ldsm_chain", 4) - link,
        "shfl_latency": _cycles(record, "shfl_chain", 4),
        "shfl_pipe": _cycles(record, "shfl_tp", 8) / 2,
        "mufu_latency": _cycles(record, "mufu_chain", 4),
        "mufu_pipe": _cycles(record, "mufu_tp", 8) / 2,
        "alu_pipe": alu,
        "fma_pipe": _cycles(record, "fmul_tp", 8) / 2,
        "imad_pipe": _cycles(record, "imad_tp", 8) / 2,
        "barrier_4_warps": _cycles(record, "bar_chain", 4),
        "barrier_8_warps": _cycles(record, "bar_chain", 8),
    }
    return {
        "value": {k: round(v, 3) for k, v in value.items()},
        "source": (
            f"measured on {record['gpu']}, {record['date']}, python -m gpusim.calibrate.sass_timing"
        ),
        "note": (
            "SM cycles per warp: chains of 32 dependent instructions (latency), 8 independent "
            "chains at 2 warps per scheduler (pipe cycles per warp-instruction per scheduler); "
            "alu_pipe is the median of FMNMX, LOP3 and F2FP; IMAD holds the FMA pipe for imad_pipe"
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
