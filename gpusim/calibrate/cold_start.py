"""What a kernel pays after the timing harness's L2 flush beside its bytes (no attention kernel).

    python -m gpusim.calibrate.cold_start --out FILE      (on the GPU)
    python -m gpusim.calibrate.cold_start --table FILE

The validation and held-out sets time every kernel right after a kernel that writes 256 MB
(the L2 flush), and the model's short runs are its fastest (B32 H16 N512 causal -18 %, the
one-kernel runs of launch set 1 20-35 % too fast once charged the queued launch that was
measured). This times the DRAM benchmark's own streaming read (``read_masked`` of
kernels/memory.cu: 8 CTAs of 256 threads per SM, one wave, each thread ``iters`` 16-byte
``ld.global.cg`` loads; 0 loads is an empty kernel) over the first S bytes of a 2 GiB buffer,
S from 4 MiB to 1.1 GB, timed as the harness times (CUDA events, 2 warm-up launches, the
flush queued before each timed launch, median of 10; the record of 2026-12-04 was taken with
the harness's own ``time_launches``, which this loop repeats), three ways:

- ``warm``: no flush (S up to about 60 MB stays in the L2; the address translations stay warm);
- ``flushed``: the 256 MB flush before each launch, as the harness times;
- ``flushed+touched``: the flush, then one load per 2 MiB page of the S bytes
  (kernels/cold_start.cu), so the translations are warm and the L2 holds a 16-byte word of
  each page only.

The time a byte count adds is its bandwidth; what ``flushed`` adds over ``warm`` at equal
bytes, beyond the DRAM-versus-L2 bandwidth, is the cold start, and ``flushed+touched``
splits it into its translations and the rest. Fed to nothing by this module.
"""

from __future__ import annotations

import statistics
from typing import Any

from gpusim.calibrate.record_table import record_main

THREADS, BLOCKS_PER_SM = 256, 8
BUF_BYTES, PAGE_BYTES, FLUSH_BYTES = 2 << 30, 2 << 20, 256 << 20
ITERS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256)
MODES = ("warm", "flushed", "flushed+touched")
WARMUP, REPEATS = 2, 10
NEVER = 0x5EED1234


def measure() -> dict[str, Any]:
    """Every (mode, iters) on device 0."""
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.event_timing import event_times_s
    from gpusim.calibrate.sources import compile_module, kernel_attributes

    read = compile_module(cp, "memory.cu").get_function("read_masked")
    touch = compile_module(cp, "cold_start.cu").get_function("touch_pages")
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    grid = sms * BLOCKS_PER_SM
    buf = cp.random.randint(0, 2**31, size=BUF_BYTES // 4, dtype=cp.int32)
    sink = cp.zeros(4, dtype=cp.int32)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)
    mask = np.uint64(BUF_BYTES // 16 - 1)
    rows = []
    for iters in ITERS:
        nbytes = iters * grid * THREADS * 16
        pages = max(1, -(-nbytes // PAGE_BYTES))

        def launch(iters=iters) -> None:
            read((grid,), (THREADS,), (buf, mask, np.int32(iters), sink, np.int32(NEVER)))

        def touched(r: int, pages=pages) -> None:
            flush.fill(r & 0xFF)
            args = (buf, np.uint64(pages), np.uint64(PAGE_BYTES // 16), sink, np.int32(NEVER))
            touch((-(-pages // 128),), (128,), args)

        def flushed(r: int) -> None:
            flush.fill(r & 0xFF)  # the harness's flush: a kernel that writes 256 MB

        times = {
            "warm": event_times_s(cp, launch, REPEATS, WARMUP),
            "flushed": event_times_s(cp, launch, REPEATS, WARMUP, before=flushed),
            "flushed+touched": event_times_s(cp, launch, REPEATS, WARMUP, before=touched),
        }
        rows.append(
            {"iters": iters, "bytes": nbytes, "pages": pages, "times_s": times,
             "median_s": {m: statistics.median(t) for m, t in times.items()}}
        )  # fmt: skip
        med = rows[-1]["median_s"]
        print(f"cold_start: {nbytes / 2**20:8.1f} MiB " + " ".join(
            f"{m} {1e6 * med[m]:8.2f} us" for m in MODES), flush=True)  # fmt: skip
    return {
        "kind": "gpusim.cold_start",
        "kernel": "read_masked",
        "kernel_attributes": kernel_attributes(read),
        "threads": THREADS,
        "grid": grid,
        "warmup": WARMUP,
        "repeats": REPEATS,
        "rows": rows,
    }


def table(doc: dict[str, Any]) -> str:
    """The record as Markdown: median time per mode and byte count, and the differences."""
    if doc.get("kind") != "gpusim.cold_start":
        raise ValueError("not a cold_start record")
    lines = [
        "| MiB read | warm us | flushed us | flushed+touched us | flushed - warm us "
        "| flushed - touched us |",
        "|---|---|---|---|---|---|",
    ]
    for r in doc["rows"]:
        m = {k: 1e6 * v for k, v in r["median_s"].items()}
        lines.append(
            f"| {r['bytes'] / 2**20:.1f} | {m['warm']:.2f} | {m['flushed']:.2f} "
            f"| {m['flushed+touched']:.2f} | {m['flushed'] - m['warm']:+.2f} "
            f"| {m['flushed'] - m['flushed+touched']:+.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return record_main(argv, __doc__.split("\n\n")[0], measure, table, "cold_start")


if __name__ == "__main__":
    raise SystemExit(main())
