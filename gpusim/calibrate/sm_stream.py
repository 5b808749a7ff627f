"""What one SM can stream when few SMs stream: bandwidth per SM against SMs and bytes in flight.

    python -m gpusim.calibrate.sm_stream --out FILE [--quick]
    python -m gpusim.calibrate.sm_stream --table FILE   # GB/s per SM of a recorded run

The DRAM benchmark of the suite (:mod:`gpusim.calibrate.dram_mlp`) keeps every SM busy;
this one runs its kernel (``kernels/dram_mlp.cu``: each thread's trips issue K independent
16-byte loads and wait for all of them) on S SMs only, one CTA of 128 threads on each
(forced by the dynamic shared memory asked for), so an SM keeps ``128 x K x 16`` bytes of
reads in flight: 8, 16 and 32 KiB, the range of a decode step's K/V tile. It reads from a
buffer far larger than the L2 (``dram``) and from one the L2 holds after a warm-up
(``l2``). Its question: whether an SM alone streams faster than its fair share of a busy
GPU, and how fast (the packed-GQA and launch sets' small split grids ran 32-128 CTAs on 132
SMs; reports/long_context/pack_gqa). No attention kernel is in it, and the model takes
nothing from it yet.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.dram_mlp import THREADS, WORD_BYTES, kernel_name
from gpusim.calibrate.record_table import print_table
from gpusim.calibrate.sources import compile_module, kernel_attributes

#: SMs streaming (one CTA each), loads per thread per trip, and where the bytes come from
SMS = (1, 4, 8, 16, 32, 66, 132)
LOADS = (4, 8, 16)
SOURCES = {"dram": 2 << 30, "l2": 16 << 20}
#: bytes each SM reads per launch (long enough that the launch is a small part)
READ_BYTES_PER_SM = 16 << 20
REPEATS = 7
QUICK_REPEATS = 3
#: shared memory the GPU reserves per block (sm_90), and a margin: one CTA per SM
RESERVED_BYTES = 1024
MARGIN_BYTES = 256


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0."""
    return measure(make_context(import_cupy(), quick=quick))


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every (source, K, S): median event time of the launches and the bandwidth per SM."""
    cp = ctx.cp
    names = tuple(kernel_name(k, False) for k in LOADS)
    mod = compile_module(cp, "dram_mlp.cu", names)
    smem_per_sm = int(cp.cuda.runtime.getDeviceProperties(0)["sharedMemPerMultiprocessor"])
    # More than half the SM's shared memory: no two CTAs share an SM.
    dyn = smem_per_sm - RESERVED_BYTES - MARGIN_BYTES
    src = cp.random.randint(1, 2**31, size=max(SOURCES.values()) // 4, dtype=cp.int64)
    src = src.astype(cp.uint32)
    repeats = ctx.scale(REPEATS, QUICK_REPEATS)
    rows, kernels = [], {}
    for k in LOADS:
        fn = mod.get_function(kernel_name(k, False))
        fn.max_dynamic_shared_size_bytes = dyn
        kernels[kernel_name(k, False)] = kernel_attributes(fn)
        per_trip = THREADS * k * WORD_BYTES
        trips = max(1, READ_BYTES_PER_SM // per_trip // ctx.scale(1, 4))
        for source, buf in SOURCES.items():
            for s in SMS:
                if s > ctx.sm_count:
                    continue
                out = cp.full(s * THREADS, cp.nan, dtype=cp.float32)
                mask = np.uint64(buf // WORD_BYTES - 1)
                args = (src, src, mask, np.int32(trips), np.uint32(0), out)
                fn((s,), (THREADS,), args, shared_mem=dyn)  # warm-up (and the L2 filled)
                times = []
                for _ in range(repeats):
                    a, b = cp.cuda.Event(), cp.cuda.Event()
                    a.record()
                    fn((s,), (THREADS,), args, shared_mem=dyn)
                    b.record()
                    b.synchronize()
                    times.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
                med = float(np.median(times))
                moved = s * per_trip * trips
                rows.append(
                    {
                        "source": source,
                        "sms": s,
                        "loads_per_trip": k,
                        "read_bytes_in_flight_per_sm": per_trip,
                        "bytes_read": moved,
                        "median_s": med,
                        "times_s": times,
                        "bandwidth_bytes_per_s": moved / med,
                        "bandwidth_per_sm_bytes_per_s": moved / med / s,
                        "outputs_finite": bool(cp.isfinite(out).all()),
                    }
                )
                ctx.log(f"{source} K={k} S={s}: {moved / med / s / 1e9:.1f} GB/s per SM")
    return {"gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "dynamic_smem_bytes": dyn, "kernels": kernels, "rows": rows}  # fmt: skip


def per_sm_table(record: dict[str, Any]) -> dict[str, dict[int, dict[int, float]]]:
    """``{source: {bytes in flight per SM: {SMs: GB/s per SM}}}`` of a recorded run."""
    out: dict[str, dict[int, dict[int, float]]] = {}
    for r in record["rows"]:
        by_x = out.setdefault(r["source"], {}).setdefault(r["read_bytes_in_flight_per_sm"], {})
        by_x[r["sms"]] = r["bandwidth_per_sm_bytes_per_s"] / 1e9
    return out


def table_text(record: dict[str, Any]) -> str:
    """The recorded run's GB/s per SM, a row per source and bytes in flight."""
    table = per_sm_table(record)
    sms = sorted({s for by_x in table.values() for row in by_x.values() for s in row})
    lines = ["source  in flight  " + " ".join(f"{f'S={s}':>7}" for s in sms)]
    for source, by_x in table.items():
        for x, row in sorted(by_x.items()):
            cells = " ".join(f"{row[s]:7.1f}" if s in row else f"{'-':>7}" for s in sms)
            lines.append(f"{source:6}  {x // 1024:6d} KiB {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON, or print a recorded run's table."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--table"] and len(argv) == 2:
        return print_table(Path(argv[1]), table_text, "sm_stream")
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
