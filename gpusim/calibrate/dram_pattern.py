"""DRAM bandwidth by access pattern: reads, writes and copies in runs of 64 bytes to 32 KiB.

    python -m gpusim.calibrate.dram_pattern --out FILE      (on the GPU)
    python -m gpusim.calibrate.dram_pattern --table FILE

The profiles hold a copy's bandwidth (reads and writes in equal bytes) and a read stream's
(``dram_read``). A kernel that writes far more than it reads (standard attention's first
product writes S, N x N) or reads a row-major matrix a tile at a time (its second product
reads P in runs of the tile's width, rows 32 KiB apart) meets neither pattern, and the
validation sweep has standard attention 14 % fast (seen). This measures plain 16-byte loads,
stores and load-store copies (``kernels/dram_pattern.cu``: no attention code) over a 4-GiB
buffer, one contiguous stream or runs of 64, 128, 256 and 512 bytes down 128-row bands of
32-KiB rows, 8 CTAs of 256 threads per SM on every SM; CUDA-event time, median of 9 launches
after a warm-up. A fact for a later mechanism; nothing reads it yet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.event_timing import event_times_s
from gpusim.calibrate.record_table import record_main
from gpusim.calibrate.sources import compile_module, kernel_attributes

KIND = "gpusim.dram_pattern"
WORD_BYTES, BUFFER_BYTES, THREADS, CTAS_PER_SM, REPEATS = 16, 4 << 30, 256, 8, 9
MODES = {0: "read", 1: "write", 2: "copy"}
#: (run in 16-byte words, mode): 2048 words is one contiguous stream
CONFIGS = (*((r, m) for m in (0, 1) for r in (4, 8, 16, 32, 2048)), (8, 2), (2048, 2))


def kernel_name(run_words: int, mode: int) -> str:
    return f"dram_pattern<{run_words},{mode}>"


def measure(ctx: BenchContext | None = None) -> dict[str, Any]:
    """Every configuration's median time and bandwidth (bytes read plus written)."""
    ctx = ctx or make_context(import_cupy())
    cp = ctx.cp
    mod = compile_module(cp, "dram_pattern.cu", tuple(kernel_name(r, m) for r, m in CONFIGS))
    words = BUFFER_BYTES // WORD_BYTES
    src = cp.random.randint(1, 2**31, size=words * 4, dtype=cp.int64).astype(cp.uint32)
    dst = cp.zeros_like(src)
    ctas = ctx.sm_count * CTAS_PER_SM
    rows, kernels = [], {}
    for run_words, mode in CONFIGS:
        fn = mod.get_function(kernel_name(run_words, mode))
        kernels[kernel_name(run_words, mode)] = kernel_attributes(fn)
        out = cp.full(ctas * THREADS, cp.nan, dtype=cp.float32)
        args = (src, dst, np.uint64(words), out)
        times = event_times_s(cp, lambda fn=fn, args=args: fn((ctas,), (THREADS,), args),
                              repeats=REPEATS, warmup=1)  # fmt: skip
        moved = BUFFER_BYTES * (2 if mode == 2 else 1)
        med = float(np.median(times))
        rows.append({
            "mode": MODES[mode], "run_bytes": run_words * WORD_BYTES,
            "contiguous": run_words == 2048, "bytes_moved": moved, "median_s": med,
            "times_s": times, "bandwidth_bytes_per_s": moved / med,
            "outputs_finite": bool(cp.isfinite(out).all()),
        })  # fmt: skip
        ctx.log(f"{MODES[mode]} runs of {run_words * WORD_BYTES} B: {moved / med / 1e12:.3f} TB/s")
    return {"kind": KIND, "gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "buffer_bytes": BUFFER_BYTES, "threads": THREADS, "ctas_per_sm": CTAS_PER_SM,
            "kernels": kernels, "rows": rows}  # fmt: skip


def table(doc: dict[str, Any]) -> str:
    """A recorded run as Markdown: one row per mode and run length."""
    if doc.get("kind") != KIND:
        raise ValueError("not a dram_pattern record")
    lines = ["| access | run | TB/s (median) | min-max |", "|---|---|---|---|"]
    for r in doc["rows"]:
        ts = r["times_s"]
        run = "contiguous" if r["contiguous"] else f"{r['run_bytes']} B, rows 32 KiB apart"
        lo, hi = r["bytes_moved"] / max(ts) / 1e12, r["bytes_moved"] / min(ts) / 1e12
        lines.append(
            f"| {r['mode']} | {run} | {r['bandwidth_bytes_per_s'] / 1e12:.3f} | {lo:.3f}-{hi:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return record_main(argv, __doc__.split("\n\n")[0], measure, table, "dram_pattern")


if __name__ == "__main__":
    raise SystemExit(main())
