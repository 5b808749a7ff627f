"""DRAM bandwidth against the read bytes an SM keeps in flight (kernels/dram_mlp.cu).

``gpusim calibrate`` runs it as its ``dram_mlp`` benchmark (``--quick``: 3 launches per
shape); on its own: ``python -m gpusim.calibrate.dram_mlp --out FILE``. Each thread's trips
issue K independent 16-byte loads and wait for all of them (and, copying, store them again),
with C CTAs of 128 threads per SM: an SM keeps ``C x 128 x K x 16`` bytes of reads in
flight. A kernel whose threads wait for a few loads at a time (the row softmax of standard
attention reads its row two 16-byte loads per trip) cannot reach the DRAM's bandwidth when
too few bytes are in flight to cover the latency under load; :func:`profile_entry` gives the
share of the bandwidth each amount reaches, the profile's ``dram_share_by_inflight``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.l2_loss import isotonic
from gpusim.calibrate.sources import compile_module, kernel_attributes

#: loads per thread per trip, CTAs per SM, and whether loaded words are stored again
LOADS = (1, 2, 4, 8)
CTAS = (1, 2, 3, 4, 6, 8, 12, 16)
THREADS = 128
WORD_BYTES = 16
#: each buffer (a power of two of 16-byte words, far larger than the L2)
BUFFER_BYTES = 2 << 30
#: bytes each launch reads
READ_BYTES = 512 << 20
REPEATS = 7
QUICK_REPEATS = 3


def kernel_name(k: int, copy: bool) -> str:
    """The template instance of one trip shape."""
    return f"dram_mlp<{k},{'true' if copy else 'false'}>"


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0 (``--quick``: the suite's quick variant)."""
    return measure(make_context(import_cupy(), quick=quick))


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every (copy, K, C): median event time of ``REPEATS`` launches and the bandwidth."""
    cp = ctx.cp
    names = tuple(kernel_name(k, c) for c in (False, True) for k in LOADS)
    mod = compile_module(cp, "dram_mlp.cu", names)
    buf = BUFFER_BYTES
    words = buf // WORD_BYTES
    src = cp.random.randint(1, 2**31, size=buf // 4, dtype=cp.int64).astype(cp.uint32)
    dst = cp.zeros(buf // 4, dtype=cp.uint32)
    read_bytes = READ_BYTES
    repeats = ctx.scale(REPEATS, QUICK_REPEATS)  # quick: fewer repeats, the same shapes
    rows, kernels = [], {}
    for copy in (False, True):
        for k in LOADS:
            name = kernel_name(k, copy)
            fn = mod.get_function(name)
            kernels[name] = kernel_attributes(fn)
            for c in CTAS:
                grid = ctx.sm_count * c
                trips = max(1, read_bytes // (grid * THREADS * k * WORD_BYTES))
                out = cp.full(grid * THREADS, cp.nan, dtype=cp.float32)
                args = (src, dst, np.uint64(words - 1), np.int32(trips), np.uint32(0), out)
                fn((grid,), (THREADS,), args)  # warm-up
                times = []
                for _ in range(repeats):
                    a, b = cp.cuda.Event(), cp.cuda.Event()
                    a.record()
                    fn((grid,), (THREADS,), args)
                    b.record()
                    b.synchronize()
                    times.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
                finite = bool(cp.isfinite(out).all())
                moved = grid * THREADS * k * WORD_BYTES * trips * (2 if copy else 1)
                med = float(np.median(times))
                rows.append(
                    {
                        "copy": copy,
                        "loads_per_trip": k,
                        "ctas_per_sm": c,
                        "read_bytes_in_flight_per_sm": c * THREADS * k * WORD_BYTES,
                        "bytes_moved": moved,
                        "median_s": med,
                        "times_s": times,
                        "bandwidth_bytes_per_s": moved / med,
                        "outputs_finite": finite,
                    }
                )
                ctx.log(f"{name} C={c}: {moved / med / 1e12:.3f} TB/s")
    return {"gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "kernels": kernels, "rows": rows}  # fmt: skip


def share_curve(record: dict[str, Any], copy: bool = True) -> list[tuple[float, float]]:
    """``[(read bytes in flight per SM, share of the best bandwidth), ...]`` of one mode:
    shapes with the same bytes in flight averaged, the curve made non-decreasing."""
    by_x: dict[int, list[float]] = {}
    for r in record["rows"]:
        if r["copy"] == copy:
            by_x.setdefault(r["read_bytes_in_flight_per_sm"], []).append(r["bandwidth_bytes_per_s"])
    if len(by_x) < 2:
        raise ValueError("fewer than two in-flight amounts in the record")
    xs = sorted(by_x)
    means = [sum(by_x[x]) / len(by_x[x]) for x in xs]
    fitted = isotonic(means, [float(len(by_x[x])) for x in xs])
    best = fitted[-1]
    return [(float(x), round(min(1.0, v / best), 4)) for x, v in zip(xs, fitted, strict=True)]


def profile_entry(record: dict[str, Any]) -> dict[str, Any]:
    """``dram_share_by_inflight`` from a recorded run: the copy mode's curve (a row softmax
    reads and writes as much), bandwidth counted as bytes read plus written."""
    curve = share_curve(record, copy=True)
    best = max(r["bandwidth_bytes_per_s"] for r in record["rows"] if r["copy"])
    return {
        "value": [[x, s] for x, s in curve],
        "source": (
            f"measured on {record['gpu']}, {record['date']}, python -m gpusim.calibrate.dram_mlp"
        ),
        "note": (
            "share of the best copy bandwidth (read + written bytes; best "
            f"{best / 1e12:.2f} TB/s) reached with each amount of read bytes in flight per SM "
            "(K 16-byte loads per thread per trip x 128 threads x C CTAs); shapes with equal "
            "amounts averaged, made non-decreasing"
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
